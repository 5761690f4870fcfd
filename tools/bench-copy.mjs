// The floor of the PostgreSQL rows in `pnpm bench`: a bare COPY of rows already in COPY's text
// format into an empty table, streamed from a file by the driver Scanbridge's sink uses. Nothing
// is parsed, migrated or upserted: what writing the rows costs the server and the driver alone.
// Usage: node bench-copy.mjs URL TABLE LIKE FILE
import { createReadStream } from "node:fs"
import { pipeline } from "node:stream/promises"
import pg from "pg"
import { from as copyFrom } from "pg-copy-streams"

const [url, table, like, file] = process.argv.slice(2)
const client = new pg.Client({ connectionString: url })
await client.connect()
await client.query(`drop table if exists ${table}; create table ${table} (like ${like})`)
await client.query("begin")
await pipeline(createReadStream(file, { highWaterMark: 1 << 20 }), client.query(copyFrom(`copy ${table} from stdin`)))
await client.query("commit")
await client.end()
