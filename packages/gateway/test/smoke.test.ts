import { it, expect } from "vitest"
it("loads", async () => {
  const m = await import("@scanbridge/gateway")
  expect(m.Gateway.gatewayRouter).toBeDefined()
})
