/**
 * The session API's `ScanningResults` (packages/session/src/wire.ts) as a protobuf-es v2 message
 * descriptor, for the bench's peers table (tools/bench-peers.ts): what an integrator holding the
 * vendor's .proto gets from protoc, built here at runtime (no protoc in this repository) from a
 * FileDescriptorProto. `fromJson` of it reads every spelling a conforming proto3 parser reads.
 *
 * The enums' value names are the session package's own (its dialect), so the two cannot drift.
 * Spec 02 documents no numbers for most UnitType and posture names; a descriptor needs some, so
 * each undocumented name takes the lowest number still free. JSON carries names, so the numbers
 * chosen change nothing the bench reads.
 *
 * What it does not do that normalize does: no canonical scan (units, catalogue names, posture
 * names, timestamps), no notes, and a key it does not know is refused rather than noted.
 */
import { type DescMessage, type JsonValue, create, createFileRegistry, fromJson } from "@bufbuild/protobuf"
import {
  type DescriptorProto,
  type EnumDescriptorProto,
  EnumDescriptorProtoSchema,
  type FieldDescriptorProto,
  FieldDescriptorProtoSchema,
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  DescriptorProtoSchema,
  FileDescriptorProtoSchema,
  file_google_protobuf_timestamp
} from "@bufbuild/protobuf/wkt"
import type { Proto3 } from "@scanbridge/model"
import { Wire } from "@scanbridge/session/adapter"

const PACKAGE = "scanbridge.peers.session"
const TIMESTAMP_FILE = "google/protobuf/timestamp.proto"

/** Documented numbers as they are; every other name the lowest number still free. */
const enumOf = (type: Proto3.EnumType): EnumDescriptorProto => {
  const taken = new Set(type.byNumber.keys())
  let free = 0
  const value = Object.entries(type.numbers).map(([name, documented]) => {
    if (documented !== null) return { name, number: documented }
    while (taken.has(free)) free++
    taken.add(free)
    return { name, number: free }
  })
  return create(EnumDescriptorProtoSchema, { name: type.name, value: value.sort((a, b) => a.number - b.number) })
}

type Kind = "string" | "int64" | "double" | { readonly message: string } | { readonly enum: Proto3.EnumType }

/** protoc's json_name: the field's name in lowerCamelCase. */
const jsonNameOf = (name: string) => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())

const field = (name: string, number: number, kind: Kind, options: { readonly repeated?: boolean; readonly oneof?: number } = {}): FieldDescriptorProto => {
  const typed =
    kind === "string"
      ? { type: FieldDescriptorProto_Type.STRING }
      : kind === "int64"
        ? { type: FieldDescriptorProto_Type.INT64 }
        : kind === "double"
          ? { type: FieldDescriptorProto_Type.DOUBLE }
          : "message" in kind
            ? { type: FieldDescriptorProto_Type.MESSAGE, typeName: kind.message.startsWith(".") ? kind.message : `.${PACKAGE}.${kind.message}` }
            : { type: FieldDescriptorProto_Type.ENUM, typeName: `.${PACKAGE}.${kind.enum.name}` }
  return create(FieldDescriptorProtoSchema, {
    name,
    number,
    jsonName: jsonNameOf(name),
    label: options.repeated === true ? FieldDescriptorProto_Label.REPEATED : FieldDescriptorProto_Label.OPTIONAL,
    ...typed,
    ...(options.oneof === undefined ? {} : { oneofIndex: options.oneof })
  })
}

const message = (name: string, fields: ReadonlyArray<FieldDescriptorProto>, oneofs: ReadonlyArray<string> = []): DescriptorProto =>
  create(DescriptorProtoSchema, { name, field: [...fields], oneofDecl: oneofs.map((n) => ({ name: n })) })

const line = (name: string, names: Proto3.EnumType) =>
  message(name, [field("name", 1, { enum: names }), field("points", 2, { message: "Point" }, { repeated: true })])

const file = create(FileDescriptorProtoSchema, {
  name: "scanbridge/peers/session.proto",
  package: PACKAGE,
  syntax: "proto3",
  dependency: [TIMESTAMP_FILE],
  enumType: [Wire.MEASUREMENT_TYPE, Wire.UNIT_TYPE, Wire.ANGLE_UNIT_TYPE, Wire.FRONT_NAME, Wire.RIGHT_NAME, Wire.RESULTS_ERROR_TYPE].map(enumOf),
  messageType: [
    message("MeasurementItem", [
      field("measurement_type", 1, { enum: Wire.MEASUREMENT_TYPE }),
      field("value", 2, "int64"),
      field("unit", 3, { enum: Wire.UNIT_TYPE })
    ]),
    message("MeshVerticesOnly", [field("vertices", 1, "double", { repeated: true })]),
    message("Avatar", [field("mesh_vertices_only", 1, { message: "MeshVerticesOnly" })]),
    message("Point", [field("x", 1, "double"), field("y", 2, "double")]),
    line("FrontLine", Wire.FRONT_NAME),
    line("RightLine", Wire.RIGHT_NAME),
    message("FrontAngle", [field("name", 1, { enum: Wire.FRONT_NAME }), field("value", 2, "double"), field("unit", 3, { enum: Wire.ANGLE_UNIT_TYPE })]),
    message("RightAngle", [
      field("name", 1, { enum: Wire.RIGHT_NAME }),
      field("angles", 2, "double", { repeated: true }),
      field("unit", 3, { enum: Wire.ANGLE_UNIT_TYPE })
    ]),
    message("FrontView", [field("angles", 1, { message: "FrontAngle" }, { repeated: true }), field("lines", 2, { message: "FrontLine" }, { repeated: true })]),
    message("RightView", [field("angles", 1, { message: "RightAngle" }, { repeated: true }), field("lines", 2, { message: "RightLine" }, { repeated: true })]),
    message("Posture", [field("front", 1, { message: "FrontView" }), field("right", 2, { message: "RightView" })]),
    message("ScanningMeasurementResults", [
      field("measurements", 1, { message: "MeasurementItem" }, { repeated: true }),
      field("avatar", 2, { message: "Avatar" }),
      field("posture", 3, { message: "Posture" })
    ]),
    message("Pending", [field("expire_at_timestamp", 1, { message: ".google.protobuf.Timestamp" })]),
    message("ResultsError", [field("error_type", 1, { enum: Wire.RESULTS_ERROR_TYPE }), field("message", 2, "string")]),
    // At most one of results, pending, error: a oneof, as `oneOfKeys(…, { orNone: true })` reads it.
    message(
      "ScanningResults",
      [
        field("scanning_session_id", 1, "string"),
        field("client_scanning_id", 2, "string"),
        field("results", 3, { message: "ScanningMeasurementResults" }, { oneof: 0 }),
        field("pending", 4, { message: "Pending" }, { oneof: 0 }),
        field("error", 5, { message: "ResultsError" }, { oneof: 0 })
      ],
      ["outcome"]
    )
  ]
})

const registry = createFileRegistry(file, (name) => (name === TIMESTAMP_FILE ? file_google_protobuf_timestamp : undefined))

const found = registry.getMessage(`${PACKAGE}.ScanningResults`)
if (found === undefined) throw new Error(`the peers' session descriptor holds no ${PACKAGE}.ScanningResults`)

/** `ScanningResults`' descriptor. */
export const ScanningResults: DescMessage = found

/** protobuf-es's reading of a results record's JSON; throws on what it refuses. */
export const readScanningResults = (json: JsonValue) => fromJson(ScanningResults, json)
