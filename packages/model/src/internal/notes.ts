/**
 * The notes of one scan (or of one thing a codec writes), bounded: a record with a million
 * unknown keys would otherwise carry a million notes, several times its own size, and a
 * migration would spend gigabytes on them before it could write the line.
 */
import type { Path } from "../errors.js"
import { type Note, type NoteKind, MAX_NOTES, makeNote } from "../scan.js"

/** The path of the note that counts what was left out: nothing else is noted there on decode. */
export const OMITTED_PATH = "notes"

// The kinds in the order the summary lists them: NoteKind's own.
const KINDS: ReadonlyArray<NoteKind> = ["assumed", "converted", "dropped", "aliased"]

/**
 * Keeps the first `limit` notes as they are and counts the others by kind; `list` gives the
 * kept ones followed by one `dropped` note at `notes` that says how many were left out. So the
 * list never holds more than `limit + 1` notes, whatever the input.
 */
export class BoundedNoteList {
  // Made with the first note: most scans of a bulk migration have none or one, and a list made
  // empty takes room for seventeen on its first push.
  private kept: Array<Note> | undefined = undefined
  private omitted: Record<NoteKind, number> | undefined
  constructor(readonly limit: number = MAX_NOTES) {}

  /** Whether a note added now would be kept: callers whose detail costs something ask first. */
  get keepsNextNote(): boolean {
    return (this.kept?.length ?? 0) < this.limit
  }

  /** `makeNote`'s arguments; the note is made only when it is kept. */
  note(kind: NoteKind, path: Path | string, detail: string): void {
    if (this.keepsNextNote) this.keep(makeNote(kind, path, detail))
    else this.omit(kind)
  }

  add(note: Note): void {
    if (this.keepsNextNote) this.keep(note)
    else this.omit(note.kind)
  }

  private keep(note: Note): void {
    if (this.kept === undefined) this.kept = [note]
    else this.kept.push(note)
  }

  /** Counts `count` notes of `kind` as left out, without making them. */
  omit(kind: NoteKind, count = 1): void {
    this.omitted ??= { assumed: 0, converted: 0, dropped: 0, aliased: 0 }
    this.omitted[kind] += count
  }

  /** The notes: the kept ones as they are (no copy) when none was left out. */
  list(): ReadonlyArray<Note> {
    const omitted = this.omitted
    // Asked for with no note kept, the list is made then, and kept: each call answers the same list.
    const kept = (this.kept ??= [])
    if (omitted === undefined) return kept
    return [...kept, omittedNote(omitted, this.limit)]
  }
}

const omittedNote = (omitted: Record<NoteKind, number>, limit: number): Note => {
  let total = 0
  const parts: Array<string> = []
  for (const kind of KINDS) {
    const n = omitted[kind]
    if (n === 0) continue
    total += n
    parts.push(`${n} ${kind}`)
  }
  return makeNote("dropped", OMITTED_PATH, `${total} more note(s) left out after the first ${limit} (${parts.join(", ")})`)
}

/** The notes as a BoundedNoteList keeps them: at most `limit` of them and a note counting the rest. */
export const boundNotes = (notes: Iterable<Note>, limit: number = MAX_NOTES): ReadonlyArray<Note> => {
  const list = new BoundedNoteList(limit)
  for (const note of notes) list.add(note)
  return list.list()
}
