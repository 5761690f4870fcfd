/**
 * The top-level elements of a JSON array, found in its bytes as they arrive: an array of any size
 * is read one element at a time, and nothing but the element being read is held. Only the
 * boundaries are found here (strings with their escapes, nesting, the commas and brackets between
 * elements); each element's text is the caller's to parse (JSON.parse, as every other record
 * is), so an element is valid exactly when JSON.parse says so, and an array whose elements all
 * parse and whose separators are right is the array JSON.parse would read whole.
 *
 * Bytes, not text: every byte that matters here is ASCII, and no byte of a multi-byte UTF-8
 * character (or of one that is not UTF-8) is below 0x80, so a read may end anywhere, inside a
 * character too.
 */

/** Where and why the bytes stop being a JSON array. */
export interface ArrayFault {
  /** The byte of the content (decompressed, for a `.gz`) where it was found. */
  readonly at: number
  readonly message: string
}

/**
 * Called with each element, once its last byte has arrived: its bytes (a view that is valid only
 * during the call), where they begin in the content, and its 1-based number. Returns why the
 * element is not a JSON value (the array is then broken), or undefined.
 */
export type OnElement = (bytes: Uint8Array, start: number, n: number) => string | undefined

export interface ArraySplitter {
  /**
   * Reads the content's next bytes, calling `onElement` with each element they end. Returns a
   * fault, or "notArray" when the content's first character (after a byte order mark and white
   * space) is not `[`: nothing has then been read but those.
   */
  readonly push: (bytes: Uint8Array) => ArrayFault | "notArray" | undefined
  /** The content has ended: a fault unless the array was closed. "empty": there was nothing but white space. */
  readonly end: () => ArrayFault | "empty" | undefined
  /** Whether the array's [ has been read: the bytes before it need not be kept for another reading. */
  readonly opened: () => boolean
}

// What the splitter expects next.
const START = 0 // a byte order mark, white space, then [
const FIRST = 1 // after [: an element, or ]
const ELEMENT = 2 // inside an element
const AFTER = 3 // after an element: , or ]
const NEXT = 4 // after a comma: an element
const DONE = 5 // after ]: white space only

const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09
const BOM = [0xef, 0xbb, 0xbf]

// What a byte between an element's strings is to the scan: nothing, or one of these.
const QUOTE = 1
const OPEN = 2
const CLOSE = 3
const KINDS = new Uint8Array(256)
KINDS[0x22] = QUOTE
KINDS[0x7b] = KINDS[0x5b] = OPEN
KINDS[0x7d] = KINDS[0x5d] = CLOSE

/** A byte as a message shows it. */
const shown = (b: number) => (b >= 0x20 && b < 0x7f ? JSON.stringify(String.fromCharCode(b)) : `byte 0x${b.toString(16).padStart(2, "0")}`)

const concatParts = (parts: ReadonlyArray<Uint8Array>, last: Uint8Array): Uint8Array => {
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, last.length))
  let at = 0
  for (const part of [...parts, last]) {
    bytes.set(part, at)
    at += part.length
  }
  return bytes
}

export const splitArray = (onElement: OnElement): ArraySplitter => {
  let state = START
  /** The bytes of a byte order mark read at the content's start. */
  let bom = 0
  /** The content offset of the bytes being read. */
  let offset = 0
  let count = 0
  // The element being read: where it began, its bytes from earlier reads (copies), and where its
  // scan stands: nesting depth, in a string, after a backslash, or a bare scalar (a number, true,
  // false, null), which ends at the first white space, comma or ].
  let start = 0
  let parts: Array<Uint8Array> = []
  let depth = 0
  let inString = false
  let escaped = false
  let bare = false

  // The next backslash of the bytes being read at or after where the scan stands, -1 if none; -2 before it is searched.
  let backslash = -2

  const fault = (at: number, message: string): ArrayFault => ({ at, message })

  /** Scans the element from `i`; the index just past its last byte, or -1 if it goes on past `bytes`. */
  const scan = (bytes: Uint8Array, i: number): number => {
    const n = bytes.length
    if (bare) {
      for (; i < n; i++) {
        const b = bytes[i]!
        if (isSpace(b) || b === 0x2c || b === 0x5d) return i
      }
      return -1
    }
    while (i < n) {
      if (inString) {
        if (escaped) {
          escaped = false
          i++
          continue
        }
        // Most of a record's bytes are inside strings: skipped to the next quote or backslash
        // by indexOf (native), rather than a byte at a time.
        const quote = bytes.indexOf(0x22, i)
        // Kept between calls: searched again only once passed (a read without one is searched once, not per string).
        if (backslash !== -1 && backslash < i) backslash = bytes.indexOf(0x5c, i)
        if (backslash >= 0 && (quote < 0 || backslash < quote)) {
          escaped = true
          i = backslash + 1
          continue
        }
        if (quote < 0) return -1
        inString = false
        i = quote + 1
        if (depth === 0) return i
        continue
      }
      // Between strings: white space, numbers, literals and punctuation, skipped by a table.
      let kind = 0
      while (i < n && (kind = KINDS[bytes[i++]!]!) === 0);
      if (kind === QUOTE) inString = true
      else if (kind === OPEN) depth++
      else if (kind === CLOSE && --depth === 0) return i
    }
    return -1
  }

  /** Begins an element at `bytes[i]`. */
  const begin = (b: number, i: number) => {
    state = ELEMENT
    start = offset + i
    parts = []
    depth = b === 0x7b || b === 0x5b ? 1 : 0
    inString = b === 0x22
    escaped = false
    bare = depth === 0 && !inString
  }

  const push = (bytes: Uint8Array): ArrayFault | "notArray" | undefined => {
    const n = bytes.length
    let i = 0
    backslash = -2
    // Where the element being read begins in these bytes (0 when it began in an earlier read).
    let from = 0
    while (i < n) {
      if (state === ELEMENT) {
        const end = scan(bytes, i)
        if (end < 0) break
        const own = parts.length === 0 ? bytes.subarray(from, end) : concatParts(parts, bytes.subarray(0, end))
        parts = []
        count++
        const why = onElement(own, start, count)
        if (why !== undefined) return fault(start, `element ${count}, at byte ${start}: ${why}`)
        state = AFTER
        i = end
        continue
      }
      const b = bytes[i]!
      const at = offset + i
      if (state === START && at < 3 && at === bom) {
        // A byte order mark is skipped whole; a part of one is not JSON (nor white space).
        if (b === BOM[bom]) {
          bom++
          i++
          continue
        }
        if (bom > 0) return "notArray"
      }
      if (isSpace(b)) {
        i++
        continue
      }
      if (state === START) {
        if (b !== 0x5b || (bom > 0 && bom < 3)) return "notArray"
        state = FIRST
      } else if (state === FIRST || state === NEXT) {
        if (b === 0x5d && state === FIRST) state = DONE
        else if (b === 0x5d || b === 0x2c) return fault(at, `byte ${at}: ${shown(b)} where element ${count + 1} should begin`)
        else {
          begin(b, i)
          from = i
          // A bare scalar's first byte is scanned with the rest (it cannot end it); the others' opens it.
          if (!bare) i++
          continue
        }
      } else if (state === AFTER) {
        if (b === 0x2c) state = NEXT
        else if (b === 0x5d) state = DONE
        else return fault(at, `byte ${at}: ${shown(b)} after element ${count}, where a , or the closing ] should be`)
      } else return fault(at, `byte ${at}: ${shown(b)} after the array's closing ]`)
      i++
    }
    // An element that goes on past these bytes keeps its part of them, copied: the reader may fill them again.
    if (state === ELEMENT) parts.push(bytes.slice(from))
    offset += n
    return undefined
  }

  const end = (): ArrayFault | "empty" | undefined => {
    if (state === DONE) return undefined
    if (state === START) return "empty"
    const what =
      state === ELEMENT ? `inside element ${count + 1}, which began at byte ${start}` : count === 0 ? "before its first element" : `after element ${count}`
    return fault(offset, `it ends at byte ${offset}, ${what}, without the closing ]`)
  }

  return { push, end, opened: () => state !== START }
}
