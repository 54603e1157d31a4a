/**
 * Node options the ingest gateway runs with, wherever it is started: by `footfall start`, by the
 * ingest image (Dockerfile.ingest repeats them) and by the ingest benchmark.
 *
 * `--max-semi-space-size=32` (MiB; V8's default here is 16): a busy gateway holds every event's
 * request, answer and record from its arrival until its group commit is on the disk, so each
 * young-generation collection copies a few hundred live requests. A young generation twice as
 * large is collected half as often: in the benchmark, scavenges fell from about 1.2 to 0.7 µs per
 * event and events/s rose by about 4 %, for about 27 MiB more resident memory under load (a bare
 * handler, whose requests die young, gains nothing from it).
 */
export const INGEST_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=32'];
