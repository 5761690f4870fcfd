/**
 * A chunk's output lines gathered as UTF-8 bytes: the same bytes as encoding the lines joined,
 * whatever the characters, however many lines and takes, and however far the buffer must grow.
 */
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { utf8Lines } from "../src/internal/utf8-lines.js"

const encoded = (lines: ReadonlyArray<string>) => new TextEncoder().encode(lines.map((line) => `${line}\n`).join(""))

// Characters of one to four UTF-8 bytes, and lone surrogates (which both encoders write as
// U+FFFD); some lines long enough (past the 1 MiB buffer, in three-byte characters) to make it grow.
const line = fc.oneof(
  { weight: 8, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constantFrom("\uD800", "a\uDC00b", "𝄞".repeat(3)) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom("x", "é", "€", "𝄞"), fc.integer({ min: 100_000, max: 400_000 })).map(([c, n]) => c.repeat(n)) }
)

describe("utf8Lines", () => {
  it("gives the bytes of each take's lines, each followed by a newline, as TextEncoder encodes them", () => {
    fc.assert(
      fc.property(fc.array(fc.array(line, { maxLength: 12 }), { minLength: 1, maxLength: 4 }), (takes) => {
        const gathered = utf8Lines()
        for (const lines of takes) {
          for (const text of lines) gathered.add(text)
          const bytes = gathered.take()
          // Compared as buffers: a deep equality of megabytes, element by element, takes minutes.
          expect(Buffer.compare(bytes, encoded(lines))).toBe(0)
          // Its own buffer: the next take does not write over it.
          expect(bytes.byteLength).toBe(bytes.buffer.byteLength)
        }
      }),
      { numRuns: 40 }
    )
  })

  it("drops what was added before a clear", () => {
    const gathered = utf8Lines()
    gathered.add("lost")
    gathered.clear()
    gathered.add("kept")
    expect(new TextDecoder().decode(gathered.take())).toBe("kept\n")
  })
})
