import { packageBuild } from "../../tsup.shared"

export default packageBuild(["src/index.ts", "src/plain.ts", "src/adapter-kit.ts", "src/internal/index.ts"])
