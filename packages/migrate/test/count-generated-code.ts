/**
 * Counts every `new Function` (and `Function()`) from the moment it is imported: a child process
 * imports it before anything else, to show what generated code and what did not.
 */
let calls = 0
globalThis.Function = new Proxy(Function, {
  construct: (target, args, newTarget) => {
    calls++
    return Reflect.construct(target, args, newTarget) as object
  },
  apply: (target, self, args) => {
    calls++
    return Reflect.apply(target, self, args) as unknown
  }
})

/** How many functions were generated from strings since this module loaded. */
export const generatedCode = (): number => calls
