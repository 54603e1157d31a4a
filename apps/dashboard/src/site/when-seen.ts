import { type Loaded, useLoad } from '../components/use-load.ts';
import { useVisible } from '../components/use-visible.ts';
import { dataKey, type Scope } from './scope.ts';

/**
 * The data of a panel below the fold: asked for once the panel comes near the screen (attach
 * `ref` to it), and again when the period or the filters change.
 */
export function useWhenSeen<T>(
  scope: Scope,
  load: (signal: AbortSignal) => Promise<T>,
): [{ current: HTMLElement | null }, Loaded<T | undefined>] {
  const [ref, seen] = useVisible<HTMLElement>();
  const data = useLoad(
    (signal) => (seen ? load(signal) : Promise.resolve(undefined)),
    [dataKey(scope), seen],
  );
  return [ref, data];
}
