/**
 * Takes a place in an engine's queue of writer work and holds it until released: a batch holds
 * the writer from its first slice to its commit. Resolves once the place is taken; `held` settles
 * once it is given back.
 */
export async function holdWriter(
  write: (work: () => Promise<void>) => Promise<void>,
): Promise<{ release: () => void; held: Promise<void> }> {
  let release: () => void = () => {};
  const ended = new Promise<void>((resolve) => {
    release = resolve;
  });
  let taken: () => void = () => {};
  const holding = new Promise<void>((resolve) => {
    taken = resolve;
  });
  const held = write(async () => {
    taken();
    await ended;
  });
  await holding;
  return { release, held };
}
