import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';
import { t } from '../i18n/common.ts';
import { ScrollRegion } from './ui.tsx';

/**
 * A modal dialog on the browser's own `<dialog>`: focus moves into it and stays there, Escape and
 * the close button close it, and focus returns where it was.
 */
export function Modal(props: {
  title: string;
  onClose: () => void;
  wide?: boolean;
  children: ComponentChildren;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    const before = document.activeElement as HTMLElement | null;
    dialog?.showModal();
    return () => {
      dialog?.close();
      before?.focus?.();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      class={props.wide ? 'modal wide' : 'modal'}
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        props.onClose();
      }}
    >
      <div class="modal-head">
        <h2 id={titleId}>{props.title}</h2>
        <button type="button" class="icon-button" aria-label={t('close')} onClick={props.onClose}>
          ×
        </button>
      </div>
      <ScrollRegion class="modal-body" label={props.title}>
        {props.children}
      </ScrollRegion>
    </dialog>
  );
}
