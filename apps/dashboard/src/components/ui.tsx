import type { AnchorHTMLAttributes, ComponentChildren, InputHTMLAttributes } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError } from '../api/client.ts';
import { t } from '../i18n/common.ts';
import { compact, formatNumber } from '../i18n/format.ts';
import { follow } from '../router.ts';

export { compact };

/** A link inside the app: navigates without a page load, opens in a new tab as links do. */
export function Link(props: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const { href, onClick, ...rest } = props;
  return (
    <a
      {...rest}
      href={href}
      onClick={(e) => {
        onClick?.(e as never);
        follow(e, href);
      }}
    />
  );
}

/** The message of an error as a person reads it: the API's own text, or a plain sentence. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return t('somethingWrong');
}

/** An error shown where it happened, read out by screen readers as it appears. */
export function ErrorNote({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  return (
    <p class="error" role="alert">
      {messageOf(error)}
    </p>
  );
}

/**
 * A region wider or taller than the screen that scrolls on its own (a wide table): focusable, so
 * keyboard users can scroll it too (WCAG 2.1.1; axe's scrollable-region-focusable).
 */
export function ScrollRegion(props: { label: string; class?: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take keyboard focus to scroll
    <section class={props.class ?? 'heatmap-scroll'} tabIndex={0} aria-label={props.label}>
      {props.children}
    </section>
  );
}

export function Spinner({ label = t('loading') }: { label?: string }) {
  return (
    <div class="spinner" role="status">
      <span class="visually-hidden">{label}…</span>
    </div>
  );
}

/** A labelled form field; the error names it when the API said this field was wrong. */
export function Field(props: {
  label: string;
  hint?: ComponentChildren;
  error?: string | undefined;
  children: (id: string, describedBy: string | undefined) => ComponentChildren;
}) {
  const [id] = useState(() => `f${Math.random().toString(36).slice(2, 9)}`);
  const describedBy = [props.hint ? `${id}-hint` : '', props.error ? `${id}-error` : '']
    .filter(Boolean)
    .join(' ');
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {props.children(id, describedBy || undefined)}
      {props.hint && (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      )}
      {props.error && (
        <p class="field-error" id={`${id}-error`}>
          {props.error}
        </p>
      )}
    </div>
  );
}

/** A labelled text input (any `type`): the common case of Field. */
export function InputField(props: {
  label: string;
  hint?: ComponentChildren;
  error?: string | undefined;
  value: string;
  onValue: (value: string) => void;
  type?: 'text' | 'email' | 'password' | 'url' | 'search' | 'color' | 'date';
  autocomplete?: string;
  required?: boolean;
  minLength?: number;
  maxLength?: number;
  placeholder?: string;
  inputMode?: 'text' | 'numeric' | 'email' | 'url';
}) {
  const { label, hint, error, value, onValue, ...input } = props;
  return (
    <Field label={label} hint={hint} error={error}>
      {(id, describedBy) => (
        <input
          // Preact types an input by its type, one union member each; these attributes suit all
          {...(input as InputHTMLAttributes<HTMLInputElement>)}
          id={id}
          aria-describedby={describedBy}
          value={value}
          onInput={(e) => onValue(e.currentTarget.value)}
        />
      )}
    </Field>
  );
}

/** A secret shown once (a new key, a generated password): the text, a copy button and Done. */
export function ShownOnce(props: {
  secret: string;
  copyLabel: string;
  onDone: () => void;
  children: ComponentChildren;
}) {
  return (
    <div class="card notice-card stack" role="status">
      <p>{props.children}</p>
      <code class="code-box">{props.secret}</code>
      <div class="row">
        <CopyButton text={props.secret} label={props.copyLabel} />
        <button type="button" class="button secondary" onClick={props.onDone}>
          {t('done')}
        </button>
      </div>
    </div>
  );
}

/**
 * A destructive action asked twice: `ask` opens the confirmation, `confirm` does it (danger),
 * Keep goes back. Small buttons, for rows of a table.
 */
export function ConfirmAction(props: {
  ask: ComponentChildren;
  askLabel?: string;
  confirm: ComponentChildren;
  busy: boolean;
  onConfirm: () => void;
}) {
  const [confirming, setConfirming] = useState(false);
  return confirming ? (
    <>
      <button type="button" class="button danger small" disabled={props.busy} onClick={props.onConfirm}>
        {props.confirm}
      </button>
      <button type="button" class="button secondary small" onClick={() => setConfirming(false)}>
        {t('keep')}
      </button>
    </>
  ) : (
    <button
      type="button"
      class="button secondary small"
      onClick={() => setConfirming(true)}
      aria-label={props.askLabel}
    >
      {props.ask}
    </button>
  );
}

/** Copies text to the clipboard and says so. */
export function CopyButton({ text, label = t('copy') }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      class="button secondary"
      onClick={async () => {
        await navigator.clipboard?.writeText(text).catch(() => undefined);
        setDone(true);
        setTimeout(() => setDone(false), 2000);
      }}
    >
      {done ? t('copied') : label}
      <span class="visually-hidden" aria-live="polite">
        {done ? t('toClipboard') : ''}
      </span>
    </button>
  );
}

/** Seconds as `1m 05s` or `45s`. */
export function duration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return t('seconds', { s: String(s) });
  const m = Math.floor(s / 60);
  if (m < 60) return t('minutesSeconds', { m: String(m), s: String(s % 60).padStart(2, '0') });
  return t('hoursMinutes', { h: formatNumber(Math.floor(m / 60)), m: String(m % 60).padStart(2, '0') });
}
