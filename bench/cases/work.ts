/**
 * The work every measured site does: a tiny function that depends on its argument, so the
 * gate's answer and the call cannot be optimised away. Each case module makes its own copy
 * (`makeWork()`) and binds it to a local const, so no module-interop getter sits between a
 * site and its callee (see bench/README section in the top-level README: "Method").
 */
export type Work = (span?: unknown) => number;

export function makeWork(): Work {
  let counter = 0;
  return (span?: unknown): number => {
    counter = (counter + (span ? 2 : 1)) | 0;
    return counter;
  };
}
