/** The scans of a file, for the commands that show them. */
import { FileSystem } from "@effect/platform"
import { Effect, Either } from "effect"
import { Normalizer } from "@scanbridge/migrate"
import type { Scan } from "@scanbridge/model"
import { CliError } from "./errors.js"

/** Every scan of a file: one JSON document, or NDJSON. */
export const scansOf = (file: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const text = yield* Effect.mapError(fs.readFileString(file), () => new CliError({ message: `${file}: cannot read it (missing, a folder, or not permitted)` }))
    const normalizer = yield* Normalizer
    const documents = (() => {
      try {
        return [JSON.parse(text) as unknown]
      } catch {
        return text.split("\n").filter((l) => l.trim() !== "")
      }
    })()
    const scans: Array<Scan> = []
    for (const [i, doc] of documents.entries()) {
      let json: unknown = doc
      if (typeof doc === "string") {
        try {
          json = JSON.parse(doc)
        } catch {
          return yield* Effect.fail(new CliError({ message: `${file}:${i + 1}: not JSON` }))
        }
      }
      const result = normalizer.normalize(json)
      if (Either.isLeft(result)) return yield* Effect.fail(new CliError({ message: `${file}${documents.length > 1 ? `:${i + 1}` : ""}: ${result.left.message}` }))
      scans.push(...result.right)
    }
    if (scans.length === 0) return yield* Effect.fail(new CliError({ message: `${file}: holds no scan` }))
    return scans
  })
