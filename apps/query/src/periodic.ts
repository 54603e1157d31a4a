/**
 * A background job's rhythm: `pass` runs `firstMs` after start, then `everyMs` after each pass
 * ends (never two at once); stop waits for the pass under way. Timers never keep the process up.
 */
export class Periodic {
  #timer: NodeJS.Timeout | undefined;
  #pass: Promise<void> | undefined;
  #stopped = false;

  constructor(
    private readonly pass: () => Promise<void>,
    private readonly firstMs: number,
    private readonly everyMs: number,
  ) {}

  /** true once stop was called: a long pass checks it between its units of work */
  get stopped(): boolean {
    return this.#stopped;
  }

  start(): void {
    const tick = (delay: number) => {
      this.#timer = setTimeout(() => {
        this.#pass = this.pass().finally(() => {
          this.#pass = undefined;
          if (!this.#stopped) tick(this.everyMs);
        });
      }, delay);
      this.#timer.unref();
    };
    tick(this.firstMs);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#pass;
  }
}
