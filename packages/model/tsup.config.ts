import { packageBuild } from "../../tsup.shared"

export default packageBuild(["src/index.ts", "src/plain.ts", "src/internal/index.ts"])
