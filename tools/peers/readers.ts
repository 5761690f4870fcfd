/**
 * The peers the bench times beside normalize (tools/bench-peers.ts), per bench format, each as a
 * function that reads one parsed record and throws on a record it refuses. The test
 * (tools/test/peers.test.ts) holds these same functions to accepting every bench record and
 * refusing broken ones, so the table never times a schema that refuses everything.
 */
import type { JsonValue } from "@bufbuild/protobuf"
import * as v from "valibot"
import type { FORMATS } from "../bench-inputs.js"
import * as Valibot from "./platform-entry.valibot.js"
import * as Zod from "./platform-entry.zod.js"
import { readScanningResults } from "./session-results.protobuf.js"

export interface Peer {
  /** The library and what it is given, as the table names it. */
  readonly name: string
  /** Reads a parsed record; throws on one it refuses. */
  readonly read: (json: unknown) => unknown
}

export type PeerFormat = keyof Pick<typeof FORMATS, "platformEntry" | "platformEnvelope" | "session">

export const PEERS: Readonly<Record<PeerFormat, ReadonlyArray<Peer>>> = {
  platformEntry: [
    { name: "zod 4 `Entry.parse`", read: (json) => Zod.Entry.parse(json) },
    { name: "valibot `v.parse(Entry)`", read: (json) => v.parse(Valibot.Entry, json) }
  ],
  platformEnvelope: [
    { name: "zod 4 `EntryEnvelope.parse`", read: (json) => Zod.EntryEnvelope.parse(json) },
    { name: "valibot `v.parse(EntryEnvelope)`", read: (json) => v.parse(Valibot.EntryEnvelope, json) }
  ],
  // JSON.parse gives JSON values only: the cast states what the bench's loop knows.
  session: [{ name: "protobuf-es `fromJson(ScanningResults)`", read: (json) => readScanningResults(json as JsonValue) }]
}

/** What every peer leaves undone that normalize does, for the table's note. */
export const NOT_DONE = [
  "none builds a canonical scan: units stay the vendor's (mm, grams, PERCENTAGE_E4), measurement and posture names the vendor's, timestamps as written",
  "none gives notes: what a conversion drops or changes is not said",
  "keys they do not know: zod and valibot drop them without a word, protobuf-es refuses the record; normalize keeps the record and notes each key (path and value)",
  "each reads one format: normalize first finds which of its formats a record is (every format's detect, exactly one must match)"
] as const
