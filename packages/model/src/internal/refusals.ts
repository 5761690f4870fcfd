/**
 * How Scanbridge's strict servers (the simulator, the gateway) refuse what an endpoint does not
 * know: a query parameter, a body field. One wording for both, so that a refusal reads the same
 * wherever old code meets it.
 */
import { type Path, formatPath, previewValue } from "../errors.js"

/** How many unknown names a refusal lists; the rest are counted. */
const NAMES_SHOWN = 10

/**
 * The refusal of names an endpoint does not know, or undefined when there are none: each
 * name once, quoted (a key may hold anything), the first NAMES_SHOWN of them.
 */
export const unknownNames = (what: string, noun: string, names: ReadonlyArray<string>): string | undefined => {
  const distinct = [...new Set(names)]
  if (distinct.length === 0) return undefined
  const shown = distinct.slice(0, NAMES_SHOWN).map((n) => previewValue(n, 60))
  const more = distinct.length > NAMES_SHOWN ? ` and ${distinct.length - NAMES_SHOWN} more` : ""
  return `${what}: unknown ${noun}${distinct.length === 1 ? "" : "s"} ${shown.join(", ")}${more}`
}

/** The refusal of keys a protobuf-JSON reader skipped (a strict parser's default), or undefined. */
export const unknownFields = (what: string, ignored: ReadonlyArray<{ readonly path: Path }>): string | undefined =>
  unknownNames(
    what,
    "field",
    ignored.map((i) => formatPath(i.path))
  )
