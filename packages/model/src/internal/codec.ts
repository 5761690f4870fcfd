/**
 * What two or more adapter codecs do alike, written once: the ScanInit a decoder fills in,
 * gender codes, the id a scan from another API gets, and posture read and written in a
 * dialect's names.
 */
import { Catalogue, type FrontPostureName, POSTURE_FRONT, POSTURE_RIGHT, type RightPostureName } from "../catalogue.js"
import type { PostureSpellings } from "../dialect.js"
import type { Scan, ScanInit, ScanJson } from "../scan.js"
import type { EncodeWalk } from "./walk.js"

/** A ScanInit with every key present: what a decoder's parts return, null where unknown. */
export type FullScanInit = { -readonly [K in keyof ScanInit]-?: Exclude<ScanInit[K], undefined> }

// --- Gender -------------------------------------------------------------------------------

/** GENDER unit codes, as the session and fit dialects write them: 1 male, 2 female. */
export const GENDER_CODES = { male: 1, female: 2 } as const
export type Gender = keyof typeof GENDER_CODES

const GENDER_BY_CODE = new Map<number, Gender>(Object.entries(GENDER_CODES).map(([g, n]) => [n, g as Gender]))

/** The gender of a GENDER code, or undefined for a number that is none. */
export const genderOfCode = (code: number): Gender | undefined => GENDER_BY_CODE.get(code)

// --- Ids ----------------------------------------------------------------------------------

/** How an API names its scans' ids, for the id a scan from another API gets. */
export interface IdField {
  /** The API whose id this is. */
  readonly api: string
  /** The field, as notes name it: `estimation_id`, `scanningSessionId`. */
  readonly field: string
  /** What a derived id is not: "an estimation id". */
  readonly notA: string
  /** Why a scan of this API needs its id; without it, a scan of its own with none has none. */
  readonly required?: string
  /** Whether an empty own id counts as none. */
  readonly emptyIsNone?: boolean
}

/**
 * The scan's id in `target`'s field: its own where the scan comes from that API, otherwise
 * `api:id` derived from its source, with a `converted` note saying it is not a real one.
 */
export function sourceIdFor(w: EncodeWalk, scan: Scan, target: IdField & { readonly required: string }): string
export function sourceIdFor(w: EncodeWalk, scan: Scan, target: IdField): string | null
export function sourceIdFor(w: EncodeWalk, scan: Scan, target: IdField): string | null {
  const { api, id } = scan.source
  if (api === target.api) {
    const none = id === null || (target.emptyIsNone === true && id === "")
    if (!none) return id
    return target.required === undefined ? null : w.fail(["source", "id"], id, target.required)
  }
  const derived = `${api}:${id ?? "unknown"}`
  w.note("converted", ["source", "id"], `${target.field} ${derived} derived from the ${api} source: not ${target.notA}`)
  return derived
}

// --- Posture ------------------------------------------------------------------------------

type PostureJson = NonNullable<ScanJson["posture"]>
type Point = { readonly x: number; readonly y: number }
type Writable<T> = { -readonly [K in keyof T]: T[K] }

/** One view of a posture as a decoder fills it in: every part present, null until read. */
export interface PostureView<V extends NonNullable<PostureJson["front"] | PostureJson["right"]>> {
  readonly angles: Writable<V["angles"]>
  readonly lines: Writable<V["lines"]>
}
/** The front view as a decoder fills it in: each angle and line of POSTURE_FRONT, null until read. */
export type FrontView = PostureView<NonNullable<PostureJson["front"]>>
/** The right view as a decoder fills it in: each angle list and line of POSTURE_RIGHT, null until read. */
export type RightView = PostureView<NonNullable<PostureJson["right"]>>

const { front: FRONT_NULLS, right: RIGHT_NULLS } = Catalogue.postureNulls

/** A front view with every angle and line null. */
export const emptyFrontView = (): FrontView => ({ angles: { ...FRONT_NULLS }, lines: { ...FRONT_NULLS } }) as FrontView

/** A right view with every angle list and line null. */
export const emptyRightView = (): RightView => ({ angles: { ...RIGHT_NULLS }, lines: { ...RIGHT_NULLS } }) as RightView

/** A dialect's posture names both ways, built once. */
export interface PostureNames {
  readonly spellings: PostureSpellings
  /** A front angle or line by the dialect's name for it. */
  readonly front: (name: string) => FrontPostureName | undefined
  /** A right line by the dialect's name for it. */
  readonly right: (name: string) => RightPostureName | undefined
}

/** A dialect's posture spellings as lookups from its names to the catalogue's, built once per dialect. */
export const postureNames = (spellings: PostureSpellings): PostureNames => {
  const front = new Map<string, FrontPostureName>(POSTURE_FRONT.map((p) => [spellings.front[p.name], p.name]))
  const right = new Map<string, RightPostureName>(POSTURE_RIGHT.map((p) => [spellings.right[p.name], p.name]))
  return { spellings, front: (name) => front.get(name), right: (name) => right.get(name) }
}

/** Posture as a dialect writes it: the parts the scan has, in catalogue order, each side null when absent. */
export interface WrittenPosture<U extends string> {
  readonly front: {
    readonly angles: Array<{ readonly name: string; readonly unit: U; readonly value: number }>
    readonly lines: Array<{ readonly name: string; readonly points: ReadonlyArray<Point> }>
  } | null
  readonly right: {
    readonly angles: Array<{ readonly name: string; readonly unit: U; readonly angles: ReadonlyArray<number> }>
    readonly lines: Array<{ readonly name: string; readonly points: ReadonlyArray<Point> }>
  } | null
}

/** A canonical posture in a dialect's names, its angles in `unit` (degrees, in every dialect's spelling). */
export const writePosture = <U extends string>(names: PostureNames, unit: U, posture: PostureJson): WrittenPosture<U> => {
  const { front, right } = posture
  const spell = names.spellings
  return {
    front:
      front === null
        ? null
        : {
            angles: POSTURE_FRONT.flatMap(({ name }) => (front.angles[name] === null ? [] : [{ name: spell.front[name], unit, value: front.angles[name] }])),
            lines: POSTURE_FRONT.flatMap(({ name }) => (front.lines[name] === null ? [] : [{ name: spell.front[name], points: front.lines[name] }]))
          },
    right:
      right === null
        ? null
        : {
            angles: POSTURE_RIGHT.flatMap(({ name }) => (right.angles[name] === null ? [] : [{ name: spell.right[name], unit, angles: right.angles[name] }])),
            lines: POSTURE_RIGHT.flatMap(({ name }) => (right.lines[name] === null ? [] : [{ name: spell.right[name], points: right.lines[name] }]))
          }
  }
}

// --- Identifier systems -------------------------------------------------------------------

const ABSOLUTE_URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s\p{Cc}\p{Cs}]+$/u

/**
 * An absolute URI as an identifier system must be (FHIR's `Identifier.system`): a scheme, then
 * something, and no whitespace, control character or lone surrogate anywhere
 * (`https://hospital.example/mrn`, `urn:oid:1.2.36.146.595.217.0.1`).
 */
export const isAbsoluteUri = (s: string): boolean => ABSOLUTE_URI.test(s)
