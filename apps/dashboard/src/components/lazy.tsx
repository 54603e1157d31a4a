import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { t } from '../i18n/common.ts';
import { ErrorNote, Spinner } from './ui.tsx';

/**
 * A screen loaded when it is first shown (its own file in the build), so the first view ships
 * only what it needs. `load` imports the module; `pick` names the component in it.
 */
export function lazyScreen<P extends object>(
  load: () => Promise<Record<string, unknown>>,
  name: string,
): ComponentType<P> {
  let loaded: ComponentType<P> | undefined;
  return function LazyScreen(props: P) {
    const [component, setComponent] = useState<ComponentType<P> | undefined>(() => loaded);
    const [error, setError] = useState<unknown>();
    useEffect(() => {
      if (loaded) return;
      load().then(
        (module) => {
          loaded = module[name] as ComponentType<P>;
          setComponent(() => loaded);
        },
        () => setError(new Error(t('pageNotLoaded'))),
      );
    }, []);
    if (error) return <ErrorNote error={error} />;
    if (!component) return <Spinner />;
    const Component = component;
    return <Component {...props} />;
  };
}
