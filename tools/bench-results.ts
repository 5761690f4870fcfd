/**
 * bench/results.md by sections: a part of `pnpm bench` run alone rewrites its own section and
 * leaves the figures of the others, measured on other days, as they are.
 */
import { readFileSync, writeFileSync } from "node:fs"

/** A heading without its closing parenthesis (rounds, samples): what differs from run to run. */
const keyOf = (heading: string) => heading.replace(/ \([^()]*\)$/, "")

/**
 * Puts `section` (its heading first) in place of the section of `text` under the same heading, up
 * to the next `## ` heading, or after the last section when `text` has none.
 */
export const withSection = (text: string, section: ReadonlyArray<string>): string => {
  const body = `${section.join("\n").trimEnd()}\n`
  const key = keyOf(section[0]!)
  const lines = text.split("\n")
  const start = lines.findIndex((line) => line.startsWith("## ") && keyOf(line) === key)
  if (start < 0) return `${text.trimEnd()}\n\n${body}`
  const next = lines.findIndex((line, i) => i > start && line.startsWith("## "))
  return `${lines
    .slice(0, start)
    .map((line) => `${line}\n`)
    .join("")}${body}${next < 0 ? "" : `\n${lines.slice(next).join("\n")}`}`
}

/** Writes `section` into the results file at `path`, `header` below its heading, the rest of the file as it is. */
export const patchResults = (path: string, section: ReadonlyArray<string>, header: string) => {
  let text: string
  try {
    text = readFileSync(path, "utf8")
  } catch {
    text = "# Benchmark results\n"
  }
  writeFileSync(path, withSection(text, [section[0]!, "", header, ...section.slice(1)]))
}
