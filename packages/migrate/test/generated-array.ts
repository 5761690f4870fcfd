/**
 * A pretty-printed JSON array of any size, made as it is read (never on disk, never whole in
 * memory), migrated from standard input with the heap sampled as it goes: how the tests show that
 * an array is read at flat memory whatever its size (json-array.test.ts, and 2 GB of it in
 * huge-array.sweep.ts).
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { expect } from "@effect/vitest"
import { Effect, Layer, Option, Stream } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { type MigrateProgress, Normalizer, type Report, migrate } from "../src/index.js"
import { EXPORT } from "./records.js"

const utf8 = (text: string) => new TextEncoder().encode(text)

/** Platform entries (each of which migrates), pretty-printed as elements of an array indented by two. */
const ELEMENTS = readFileSync(join(EXPORT, "platform/entries.ndjson"), "utf8")
  .trim()
  .split("\n")
  .map((line) => JSON.stringify(JSON.parse(line), null, 2).replace(/^/gm, "  "))

/** The pieces standard input brings: some 1 MiB, cut anywhere (inside strings and numbers). */
const PIECE = 1024 * 1024 - 7

export interface GeneratedArray {
  readonly bytes: Stream.Stream<Uint8Array>
  /** Its elements. */
  readonly count: number
  /** Its size in bytes. */
  readonly size: number
}

/**
 * An array of some `size` bytes: a block of elements (each followed by ",\n") repeated, then one
 * more element and the closing ]. Each piece is a view of the block written twice (a piece may
 * span its end), so making the array allocates nothing.
 */
export const generatedArray = (size: number): GeneratedArray => {
  // Some 2 MiB: a piece (at most as long as the block) is a view of the block written twice.
  const perBlock = Math.ceil((2 * PIECE * ELEMENTS.length) / ELEMENTS.join(",\n").length)
  const block = utf8(Array.from({ length: perBlock }, (_, i) => `${ELEMENTS[i % ELEMENTS.length]},\n`).join(""))
  const twice = new Uint8Array(2 * block.length)
  twice.set(block)
  twice.set(block, block.length)
  const times = Math.max(1, Math.round(size / block.length))
  const body = times * block.length
  const head = utf8("[\n")
  const tail = utf8(`${ELEMENTS[0]}\n]\n`)
  const pieces = Stream.unfold(0, (at) => {
    if (at >= body) return Option.none()
    const from = at % block.length
    return Option.some([twice.subarray(from, from + Math.min(PIECE, body - at)), at + PIECE] as const)
  })
  return {
    bytes: Stream.concat(Stream.make(head), Stream.concat(pieces, Stream.make(tail))),
    count: times * perBlock + 1,
    size: head.length + body + tail.length
  }
}

export interface HeapRun {
  readonly report: Report
  /** Lines written to the output. */
  readonly lines: number
  readonly last: MigrateProgress | undefined
  /** The most heap used at any piece read or chunk written, and before the run. */
  readonly peakHeap: number
  readonly heapBefore: number
}

const heapUsed = () => process.memoryUsage().heapUsed

/** Lines in an output's text. */
const linesIn = (text: string | Uint8Array) => {
  let n = 0
  if (typeof text === "string") for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) n++
  else for (let at = text.indexOf(10); at >= 0; at = text.indexOf(10, at + 1)) n++
  return n
}

/** Migrates `array` given as standard input into an output that counts its lines and keeps none. */
export const migrateFromStdin = (array: GeneratedArray): Promise<HeapRun> => {
  const heapBefore = heapUsed()
  let peakHeap = heapBefore
  const sample = () => void (peakHeap = Math.max(peakHeap, heapUsed()))
  let lines = 0
  let last: MigrateProgress | undefined
  return Effect.runPromise(
    Effect.map(
      migrate({
        inputs: ["-"],
        // Each piece after a turn of the event loop, as a pipe's come: a run of minutes that never
        // gave the loop a turn would starve the test runner's own messages (vitest's RPC times out).
        stdin: Stream.tap(array.bytes, () =>
          Effect.zipRight(
            Effect.sync(sample),
            Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
          )
        ),
        output: (text) => Effect.sync(() => void (lines += linesIn(text))),
        onProgress: (p) => Effect.sync(() => ((last = p), sample()))
      }),
      (report): HeapRun => ({ report, lines, last, peakHeap, heapBefore })
    ).pipe(Effect.provide(Layer.mergeAll(NodeContext.layer, Normalizer.default)))
  )
}

/** Every element of `array` read, migrated and written, its last the run's last position, and every byte of it counted. */
export const expectAllMigrated = (array: GeneratedArray, run: HeapRun) => {
  expect(run.report).toMatchObject({ records: array.count, migrated: array.count, rejected: 0 })
  expect(run.lines).toBe(array.count)
  expect(run.last).toMatchObject({ bytesRead: array.size, position: { file: "<stdin>", line: array.count } })
}
