/** The scans of a file, for the commands that show them. */
import * as FileSystem from "@effect/platform/FileSystem"
import { Effect, Either, Option } from "effect"
import { Normalizer } from "@scanbridge/migrate"
import type { Scan } from "@scanbridge/model"
import { CliError } from "./errors.js"

/** One record of a file and the scans it holds. */
export interface FileRecord {
  /** 1-based: the NDJSON record (blank lines are not records) or the JSON array's element. */
  readonly record: number
  readonly scans: ReadonlyArray<Scan>
}

/** A record as read: an NDJSON line not parsed yet, or a value of a JSON document. */
type Document = { readonly line: string } | { readonly json: unknown }

export interface Pick {
  readonly flag: string
  readonly record: Option.Option<number>
}

/**
 * The records of a file: the elements of a JSON array, one JSON document, or NDJSON, as
 * `migrate` reads them. With a record picked, only that one is read and normalized.
 */
export const recordsOf = (file: string, pick: Pick = { flag: "--record", record: Option.none() }) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const text = yield* Effect.mapError(
      fs.readFileString(file),
      () => new CliError({ message: `${file}: cannot read it (missing, a folder, or not permitted)` })
    )
    const normalizer = yield* Normalizer
    // A whole document (one record, or an array of them) or lines, parsed one by one below.
    const documents: ReadonlyArray<Document> = (() => {
      try {
        const json: unknown = JSON.parse(text)
        return Array.isArray(json) ? json.map((element: unknown) => ({ json: element })) : [{ json }]
      } catch {
        return text
          .split("\n")
          .filter((l) => l.trim() !== "")
          .map((line) => ({ line }))
      }
    })()
    const numbered = documents.map((doc, i) => [i + 1, doc] as const)
    const picked = Option.match(pick.record, {
      onNone: () => numbered,
      onSome: (n) => numbered.filter(([i]) => i === n)
    })
    if (picked.length === 0 && Option.isSome(pick.record)) {
      return yield* new CliError({
        message: `${pick.flag} ${pick.record.value}: ${file} has ${documents.length} record${documents.length === 1 ? "" : "s"}`
      })
    }
    // Where a record is, in messages: the file alone when it is the file's only record.
    const at = (i: number) => (documents.length > 1 ? `${file}:${i}` : file)
    const records: Array<FileRecord> = []
    for (const [i, doc] of picked) {
      let json: unknown
      if ("line" in doc) {
        try {
          json = JSON.parse(doc.line)
        } catch {
          return yield* new CliError({ message: `${file}:${i}: not JSON` })
        }
      } else json = doc.json
      const result = normalizer.normalize(json)
      if (Either.isLeft(result)) return yield* new CliError({ message: `${at(i)}: ${result.left.message}` })
      records.push({ record: i, scans: result.right })
    }
    if (records.every((r) => r.scans.length === 0)) {
      return yield* new CliError({ message: `${Option.isSome(pick.record) ? at(pick.record.value) : file}: holds no scan` })
    }
    return records
  })

/** Every scan of a file (or of its picked record), in order. */
export const scansOf = (file: string, pick?: Pick) => Effect.map(recordsOf(file, pick), (records) => records.flatMap((r) => r.scans))
