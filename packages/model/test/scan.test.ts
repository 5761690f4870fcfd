import { Arbitrary, Either, FastCheck as fc, Schema } from "effect"
import { describe, expect, it } from "@effect/vitest"
import {
  DecodeError,
  InvariantViolation,
  type Path,
  SCAN_FORMAT,
  Scan,
  type ScanJson,
  decodeScanEither,
  encodeScan,
  formatPath,
  makeNote,
  makeScan,
  parseScanEither,
  stringifyScan
} from "../src/index.js"
import { isPlainJsonString } from "../src/errors.js"
import { previewValue } from "../src/internal/index.js"

// The example of the contract in docs/canonical-model.md, completed where it writes "…".
const CONTRACT_EXAMPLE = {
  format: "scanbridge.scan/v1",
  source: { api: "platform", id: "scan_x" },
  status: "success",
  createdAt: "2026-01-02T03:04:05.000Z",
  expiresAt: null,
  externalId: "order-1234",
  method: "adjusted",
  subject: { age: 29, gender: "female", heightMm: 1640, weightG: 54000 },
  measurementsMm: { bustGirth: 862, waistGirth: 701 },
  composition: { bodyFatPercent: 24.1, bodyFatMassG: 13014, leanMassG: 40986, skeletalMuscleMassG: null },
  posture: {
    front: {
      angles: { ear: -1.2, shoulder: 0.4, topHip: 0.9, foot: 0 },
      lines: {
        ear: [
          { x: 410, y: 220 },
          { x: 590, y: 224 }
        ],
        shoulder: [
          { x: 380, y: 400 },
          { x: 620, y: 398 }
        ],
        topHip: [
          { x: 420, y: 800 },
          { x: 580, y: 797 }
        ],
        foot: [
          { x: 400, y: 1800 },
          { x: 600, y: 1800 }
        ]
      }
    },
    right: {
      angles: { bodyLine: [1.5, -2, 3.25, 4], backWaistLine: [10, 12.5, -3] },
      lines: {
        bodyLine: [
          { x: 500, y: 1780 },
          { x: 505, y: 1300 },
          { x: 498, y: 900 },
          { x: 495, y: 420 },
          { x: 510, y: 230 }
        ],
        backWaistLine: [
          { x: 440, y: 850 },
          { x: 445, y: 760 },
          { x: 450, y: 700 },
          { x: 452, y: 600 }
        ]
      }
    }
  },
  avatar: { format: "obj", type: "highResolution", data: "diAwIDAgMAo=", vertices: null },
  adjustment: { baseScanId: "scan_w", baseScanType: "photo", parameters: [{ name: "weight", percentage: -5 }], outputWeightG: 51300 },
  failure: null,
  notes: [{ kind: "converted", path: "measurementsMm.hipGirth", detail: "rounded 903.6 mm to 904 mm" }]
}

const CONTRACT_KEYS = [
  "format",
  "source",
  "status",
  "createdAt",
  "expiresAt",
  "externalId",
  "method",
  "subject",
  "measurementsMm",
  "composition",
  "posture",
  "avatar",
  "adjustment",
  "failure",
  "notes"
]

/** JSON cannot carry -0; compare scans as JSON does. */
const withoutNegativeZero = (value: unknown): unknown =>
  Object.is(value, -0)
    ? 0
    : Array.isArray(value)
      ? value.map(withoutNegativeZero)
      : typeof value === "object" && value !== null
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutNegativeZero(v)]))
        : value

describe("canonical JSON", () => {
  it("decodes the contract's own example", () => {
    const scan = decodeScanEither(CONTRACT_EXAMPLE)
    expect(Either.getOrThrow(scan)).toEqual(CONTRACT_EXAMPLE)
  })

  it("writes exactly the contract's keys, in the contract's order", () => {
    const scan = Either.getOrThrow(decodeScanEither(CONTRACT_EXAMPLE))
    expect(Object.keys(JSON.parse(stringifyScan(scan)))).toEqual(CONTRACT_KEYS)
  })

  it.prop("encode then decode is the identity", [Scan], ([scan]) => {
    const text = stringifyScan(scan)
    const back = Either.getOrThrow(parseScanEither(text))
    expect(back).toEqual(withoutNegativeZero(scan))
    expect(stringifyScan(back)).toBe(text)
  })

  it.prop("generated scans keep status and failure consistent", [Scan], ([scan]) => {
    expect(scan.failure === null).toBe(scan.status !== "failure")
  })
})

/** Each kind of invalid value: where it goes and what it is. */
interface Mutation {
  readonly name: string
  readonly path: Path
  readonly value: unknown
  /** Parts the mutated path needs to exist in, set before the mutation. */
  readonly setup?: Partial<ScanJson>
}

const MUTATIONS: ReadonlyArray<Mutation> = [
  { name: "another format", path: ["format"], value: "scanbridge.scan/v2" },
  { name: "empty api", path: ["source", "api"], value: "" },
  { name: "api not a string", path: ["source", "api"], value: 7 },
  { name: "unknown status", path: ["status"], value: "done" },
  { name: "timestamp with a space", path: ["createdAt"], value: "2026-01-02 03:04:05" },
  { name: "timestamp without milliseconds", path: ["expiresAt"], value: "2026-01-02T03:04:05Z" },
  { name: "timestamp not in UTC", path: ["createdAt"], value: "2026-01-02T03:04:05.000+09:00" },
  { name: "impossible date", path: ["createdAt"], value: "2026-02-30T03:04:05.000Z" },
  { name: "numeric external id", path: ["externalId"], value: 42 },
  { name: "unknown method", path: ["method"], value: "scan" },
  { name: "gender letter", path: ["subject", "gender"], value: "M" },
  { name: "gender code", path: ["subject", "gender"], value: 1 },
  { name: "negative age", path: ["subject", "age"], value: -1 },
  { name: "fractional age", path: ["subject", "age"], value: 29.5 },
  { name: "height as a string", path: ["subject", "heightMm"], value: "1640" },
  { name: "negative weight", path: ["subject", "weightG"], value: -54000 },
  { name: "negative length", path: ["measurementsMm", "hipGirth"], value: -1 },
  { name: "length as a string", path: ["measurementsMm", "waistGirth"], value: "701" },
  { name: "unknown measurement name", path: ["measurementsMm", "hip_girth"], value: 900 },
  { name: "null length", path: ["measurementsMm", "bustGirth"], value: null },
  { name: "extra top-level key", path: ["id"], value: "scan_1" },
  { name: "missing key", path: ["createdAt"], value: undefined },
  {
    name: "body fat over 100 %",
    path: ["composition", "bodyFatPercent"],
    value: 120,
    setup: { composition: { bodyFatPercent: 20, bodyFatMassG: null, leanMassG: null, skeletalMuscleMassG: null } }
  },
  {
    name: "angle as a string",
    path: ["posture", "front", "angles", "ear"],
    value: "1.2",
    setup: {
      posture: {
        front: { angles: { ear: 1, shoulder: null, topHip: null, foot: null }, lines: { ear: null, shoulder: null, topHip: null, foot: null } },
        right: null
      }
    }
  },
  {
    name: "body line of four points",
    path: ["posture", "right", "lines", "bodyLine"],
    value: [
      { x: 0, y: 0 },
      { x: 0, y: 1 },
      { x: 0, y: 2 },
      { x: 0, y: 3 }
    ],
    setup: { posture: { front: null, right: { angles: { bodyLine: null, backWaistLine: null }, lines: { bodyLine: null, backWaistLine: null } } } }
  },
  {
    name: "avatar data not base64",
    path: ["avatar", "data"],
    value: "not base64!",
    setup: { avatar: { format: "obj", type: null, data: "", vertices: null } }
  },
  {
    name: "vertices not in triples",
    path: ["avatar", "vertices"],
    value: [1, 2, 3, 4],
    setup: { avatar: { format: "vertices", type: null, data: null, vertices: [] } }
  },
  {
    name: "vertices avatar without vertices",
    path: ["avatar", "vertices"],
    value: null,
    setup: { avatar: { format: "vertices", type: null, data: null, vertices: [] } }
  },
  {
    name: "adjustment of an unknown quantity",
    path: ["adjustment", "parameters", 0, "name"],
    value: "height",
    setup: { adjustment: { baseScanId: "scan_1", baseScanType: null, parameters: [{ name: "weight", percentage: 1 }], outputWeightG: null } }
  },
  {
    name: "unknown failure category",
    path: ["failure", "category"],
    value: "network",
    setup: { status: "failure", failure: { code: "306", category: "estimation", message: null } }
  },
  {
    name: "failure on a successful scan",
    path: ["failure"],
    value: { code: "306", category: "estimation", message: null },
    setup: { status: "success" }
  },
  { name: "unknown note kind", path: ["notes", 0, "kind"], value: "guessed", setup: { notes: [{ kind: "assumed", path: "$", detail: "" }] } }
]

const setAt = (target: Record<string, unknown>, path: Path, value: unknown): void => {
  const last = path[path.length - 1]!
  const parent = path.slice(0, -1).reduce<Record<string | number, unknown>>((o, k) => o[k] as Record<string, unknown>, target)
  if (value === undefined) delete parent[last]
  else parent[last] = value
}

describe("the strict decoder", () => {
  describe.each(MUTATIONS)("rejects $name", (mutation) => {
    it.prop(
      `at ${formatPath(mutation.path)}, with its value`,
      [Scan],
      ([scan]) => {
        const json = structuredClone({ ...encodeScan(scan), ...mutation.setup }) as Record<string, unknown>
        if (mutation.setup?.status === "success") json.failure = null
        setAt(json, mutation.path, mutation.value)

        const result = decodeScanEither(json)
        expect(Either.isLeft(result), mutation.name).toBe(true)
        const error = (result as Either.Left<DecodeError, unknown>).left
        expect(error._tag).toBe("DecodeError")
        const issue = error.issues.find((i) => formatPath(i.path) === formatPath(mutation.path))
        expect(issue, `${mutation.name}: ${error.message}`).toBeDefined()
        expect(issue!.value).toEqual(mutation.value)
      },
      { fastCheck: { numRuns: 20 } }
    )
  })

  // source.api is open: an integrator's adapter names its own API, and its scans read back.
  it.prop(
    "reads any non-empty API name in source.api",
    [Scan, fc.string({ minLength: 1 })],
    ([scan, api]) => {
      const json = { ...encodeScan(scan), source: { api, id: scan.source.id } }
      const result = decodeScanEither(json)
      expect(Either.isRight(result) && result.right.source.api).toBe(api)
    },
    { fastCheck: { numRuns: 20 } }
  )

  it("names the format, the path and the value in its message", () => {
    const json = { ...CONTRACT_EXAMPLE, measurementsMm: { hipGirth: -3 } }
    const error = Either.flip(decodeScanEither(json)).pipe(Either.getOrThrow)
    expect(error.message).toBe(`${SCAN_FORMAT}: at measurementsMm.hipGirth: Expected a non-negative number, actual -3 (got -3)`)
    expect(error.path).toEqual(["measurementsMm", "hipGirth"])
    expect(error.value).toBe(-3)
  })

  it("suggests the canonical name for another dialect's spelling", () => {
    const json = { ...CONTRACT_EXAMPLE, measurementsMm: { waist_girth: 701, BUST_GIRTH: 862, wingspan: 1700 } }
    const error = Either.flip(decodeScanEither(json)).pipe(Either.getOrThrow)
    expect(error.issues.map((i) => [formatPath(i.path), i.message])).toEqual([
      ["measurementsMm.waist_girth", "is not a canonical measurement name; did you mean waistGirth?"],
      ["measurementsMm.BUST_GIRTH", "is not a canonical measurement name; did you mean bustGirth?"],
      ["measurementsMm.wingspan", "is not a canonical measurement name"]
    ])
  })

  it("reports every problem, not only the first", () => {
    const json = { ...CONTRACT_EXAMPLE, status: "done", subject: { ...CONTRACT_EXAMPLE.subject, gender: "x" } }
    const error = Either.flip(decodeScanEither(json)).pipe(Either.getOrThrow)
    expect(error.issues.map((i) => formatPath(i.path))).toEqual(["status", "subject.gender"])
  })

  it("is strict through the schema itself, whatever options the caller passes", () => {
    const withExtra = { ...CONTRACT_EXAMPLE, subject: { ...CONTRACT_EXAMPLE.subject, bmi: 20.1 } }
    expect(Either.isLeft(Schema.decodeUnknownEither(Scan)(withExtra))).toBe(true)
    expect(Either.isLeft(Schema.decodeUnknownEither(Scan, { onExcessProperty: "ignore" })(withExtra))).toBe(true)
  })

  it("checks a 20 MB avatar without overflowing the stack", () => {
    const data = Buffer.alloc(15_000_000, "v 0.1 0.2 0.3\n").toString("base64")
    const avatar = (d: string) => ({ ...CONTRACT_EXAMPLE, avatar: { format: "obj", type: null, data: d, vertices: null } })
    expect(Either.isRight(decodeScanEither(avatar(data)))).toBe(true)
    const error = Either.flip(decodeScanEither(avatar(`${data.slice(0, -4)}a!b=`))).pipe(Either.getOrThrow)
    expect(error.path).toEqual(["avatar", "data"])
  })

  it.prop("accepts exactly what Buffer writes as base64", [fc.uint8Array({ maxLength: 64 })], ([bytes]) => {
    const data = Buffer.from(bytes).toString("base64")
    const avatar = { format: "obj", type: null, data, vertices: null }
    expect(Either.isRight(decodeScanEither({ ...CONTRACT_EXAMPLE, avatar }))).toBe(true)
    for (const broken of [`${data}=`, `${data}A`, data.replace(/^./, "-")]) {
      if (broken === data) continue
      expect(Either.isLeft(decodeScanEither({ ...CONTRACT_EXAMPLE, avatar: { ...avatar, data: broken } }))).toBe(true)
    }
  })

  it("turns text that is not JSON into a DecodeError at the root", () => {
    const error = Either.flip(parseScanEither('{"format":')).pipe(Either.getOrThrow)
    expect(error).toBeInstanceOf(DecodeError)
    expect(error.path).toEqual([])
    expect(error.message).toMatch(/^scanbridge\.scan\/v1: at \$: not JSON/)
  })

  it.prop("never throws on arbitrary JSON", [fc.jsonValue()], ([json]) => {
    expect(Either.isLeft(decodeScanEither(json))).toBe(true)
  })
})

describe("makeNote", () => {
  it("writes the path as errors do", () => {
    expect(makeNote("dropped", ["posture", "front", "angles", 2], "unknown enum number 9")).toEqual({
      kind: "dropped",
      path: "posture.front.angles[2]",
      detail: "unknown enum number 9"
    })
  })
})

describe("makeScan", () => {
  it("fills every key the caller leaves out with null or empty", () => {
    const scan = Either.getOrThrow(makeScan({ source: { api: "session", id: "SSID" }, status: "pending", expiresAt: "2026-01-02T03:04:05.000Z" }))
    expect(encodeScan(scan)).toEqual({
      format: SCAN_FORMAT,
      source: { api: "session", id: "SSID" },
      status: "pending",
      createdAt: null,
      expiresAt: "2026-01-02T03:04:05.000Z",
      externalId: null,
      method: null,
      subject: { age: null, gender: null, heightMm: null, weightG: null },
      measurementsMm: {},
      composition: null,
      posture: null,
      avatar: null,
      adjustment: null,
      failure: null,
      notes: []
    })
  })

  it.prop(
    "refuses a non-finite or negative length with an InvariantViolation at its path",
    [fc.constantFrom(Infinity, -Infinity, NaN, -0.5, -1000)],
    ([bad]) => {
      const result = makeScan({ source: { api: "platform", id: null }, status: "success", measurementsMm: { hipGirth: bad } })
      const error = Either.flip(result).pipe(Either.getOrThrow)
      expect(error).toBeInstanceOf(InvariantViolation)
      expect(error.path).toEqual(["measurementsMm", "hipGirth"])
      expect(error.value).toBe(bad)
    }
  )

  it("refuses a failure status without a failure", () => {
    const error = Either.flip(makeScan({ source: { api: "estimation", id: "e1" }, status: "failure" })).pipe(Either.getOrThrow)
    expect(error.message).toBe("canonical scan invariant: at failure: a scan with status failure needs its failure (got null)")
  })

  it.prop("accepts what Arbitrary generates, unchanged", [Arbitrary.make(Scan)], ([scan]) => {
    expect(Either.getOrThrow(makeScan(encodeScan(scan)))).toEqual(scan)
  })
})

describe("isPlainJsonString", () => {
  it("is printable ASCII without quote or backslash", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.fullUnicodeString(), fc.stringMatching(/^[ -~]*$/)), (s) => {
        expect(isPlainJsonString(s)).toBe(/^[ !#-[\]-~]*$/.test(s))
      }),
      { numRuns: 5_000 }
    )
  })
})

describe("previewValue", () => {
  const byJson = (value: unknown, max = 80) => {
    const text = JSON.stringify(value)
    return text.length > max ? `${text.slice(0, max - 1)}…` : text
  }
  it("renders any string as JSON.stringify does, cut at the limit", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.fullUnicodeString(), fc.string({ minLength: 70, maxLength: 90 })), fc.integer({ min: 3, max: 100 }), (s, max) => {
        expect(previewValue(s, max)).toBe(byJson(s, max))
      }),
      { numRuns: 5_000 }
    )
  })
})
