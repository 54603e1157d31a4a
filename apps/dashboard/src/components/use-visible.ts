import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * Whether the element has come near the screen yet (it stays true once it has), so what sits below
 * the fold is asked for only when someone scrolls to it.
 */
export function useVisible<E extends Element>(): [{ current: E | null }, boolean] {
  const ref = useRef<E>(null);
  const [seen, setSeen] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (!el || seen) return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) {
          setSeen(true);
          observer.disconnect();
        }
      },
      { rootMargin: '200px' },
    );
    observer.observe(el);
    return () => observer.disconnect();
  }, [seen]);
  return [ref, seen];
}
