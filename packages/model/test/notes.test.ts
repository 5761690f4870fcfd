import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Either, FastCheck as fc } from "effect"
import { MAX_NOTES, Note, type NoteKind } from "../src/index.js"
import { BoundedNoteList, EncodeWalk, walkScan } from "../src/adapter-kit.js"
import { OMITTED_PATH, boundNotes } from "../src/internal/index.js"

const KINDS: ReadonlyArray<NoteKind> = ["assumed", "converted", "dropped", "aliased"]

/** What a summary note says was left out, by kind, or undefined for any other note. */
const omittedIn = (note: Note | undefined): Record<NoteKind, number> | undefined => {
  const m = note?.path === OMITTED_PATH ? /^(\d+) more note\(s\) left out after the first \d+ \((.*)\)$/.exec(note.detail) : null
  if (m === null || m === undefined) return undefined
  const counts: Record<NoteKind, number> = { assumed: 0, converted: 0, dropped: 0, aliased: 0 }
  for (const part of m[2]!.split(", ")) {
    const [n, kind] = part.split(" ")
    counts[kind as NoteKind] = Number(n)
  }
  expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(Number(m[1]))
  return counts
}

const countByKind = (notes: ReadonlyArray<Note>): Record<NoteKind, number> => {
  const counts: Record<NoteKind, number> = { assumed: 0, converted: 0, dropped: 0, aliased: 0 }
  for (const n of notes) counts[n.kind]++
  return counts
}

/** The kept notes and the counts of the summary note, added up by kind. */
const accounted = (bounded: ReadonlyArray<Note>): Record<NoteKind, number> => {
  const omitted = omittedIn(bounded[bounded.length - 1])
  const kept = countByKind(omitted === undefined ? bounded : bounded.slice(0, -1))
  return Object.fromEntries(KINDS.map((k) => [k, kept[k] + (omitted?.[k] ?? 0)])) as Record<NoteKind, number>
}

describe("BoundedNoteList", () => {
  it.prop(
    "keeps the first notes as they are and counts the rest: kept plus counted is what an unbounded list holds, by kind",
    [fc.array(Arbitrary.make(Note), { maxLength: 60 }), fc.nat({ max: 20 })],
    ([notes, limit]) => {
      const bounded = boundNotes(notes, limit)
      const unbounded = boundNotes(notes, Number.POSITIVE_INFINITY)
      expect(unbounded).toEqual(notes)
      expect(bounded.length).toBeLessThanOrEqual(limit + 1)
      expect(bounded.slice(0, limit)).toEqual(notes.slice(0, limit))
      if (notes.length <= limit) expect(bounded).toEqual(notes)
      else expect(omittedIn(bounded[limit])).toBeDefined()
      expect(accounted(bounded)).toEqual(countByKind(unbounded))
    }
  )

  it("counts what `omit` leaves out without making the notes", () => {
    const list = new BoundedNoteList(1)
    list.note("assumed", ["a"], "kept")
    list.omit("dropped", 5)
    list.note("converted", ["b"], "counted")
    expect(list.keepsNextNote).toBe(false)
    expect(list.list()).toEqual([
      { kind: "assumed", path: "a", detail: "kept" },
      { kind: "dropped", path: OMITTED_PATH, detail: "6 more note(s) left out after the first 1 (1 converted, 5 dropped)" }
    ])
  })
})

describe("the walks' notes", () => {
  it("a decode that notes 100,000 things builds a scan with MAX_NOTES of them and one that counts the rest", () => {
    const scan = Either.getOrThrow(
      walkScan("test", [], (w) => {
        for (let i = 0; i < 100_000; i++) w.note(i % 2 === 0 ? "dropped" : "assumed", ["k", i], `note ${i}`)
        w.noteUnknownKeys(
          [],
          Array.from({ length: 100_000 }, (_, i) => ({ path: [`x${i}`], value: i }))
        )
        return { source: { api: "test", id: null }, status: "pending" }
      })
    )
    expect(scan.notes).toHaveLength(MAX_NOTES + 1)
    expect(scan.notes[0]).toEqual({ kind: "dropped", path: "k[0]", detail: "note 0" })
    expect(omittedIn(scan.notes[MAX_NOTES])).toEqual({ assumed: 50_000 - MAX_NOTES / 2, converted: 0, dropped: 150_000 - MAX_NOTES / 2, aliased: 0 })
  })

  it("an encode's notes are bounded alike", () => {
    const w = new EncodeWalk("test")
    for (let i = 0; i < 1000; i++) w.note("converted", ["measurementsMm", `m${i}`], "rounded")
    expect(w.notes).toHaveLength(MAX_NOTES + 1)
    expect(omittedIn(w.notes[MAX_NOTES])?.converted).toBe(1000 - MAX_NOTES)
  })
})
