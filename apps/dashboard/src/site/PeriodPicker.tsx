import { useRef } from 'preact/hooks';
import { Link } from '../components/ui.tsx';
import { t } from '../i18n/report.ts';
import { PERIODS, type PeriodKey, rangeLabel } from './period.ts';
import { linkTo, type Scope } from './scope.ts';
import { withPeriod } from './view.ts';

/**
 * The period: a menu of the usual periods (each a link, with its key) and Custom range, which
 * asks for two days. The button says the period and its days.
 */
export function PeriodPicker(props: { scope: Scope; onCustom: () => void }) {
  const { scope } = props;
  const ref = useRef<HTMLDetailsElement>(null);
  const current = PERIODS.find((p) => p.key === scope.view.period);
  const close = () => ref.current?.removeAttribute('open');
  const label = scope.view.period === 'custom' ? rangeLabel(scope.range) : current?.label;
  return (
    <details
      class="menu picker"
      ref={ref}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && ref.current?.open) {
          e.stopPropagation();
          e.preventDefault();
          close();
          ref.current.querySelector('summary')?.focus();
        }
      }}
    >
      <summary
        class="button secondary"
        aria-label={t('periodButton', { period: label ?? '', days: rangeLabel(scope.range) })}
      >
        <span aria-hidden="true">
          {label}
          {scope.view.period !== 'custom' && (
            <span class="picker-days muted"> · {rangeLabel(scope.range)}</span>
          )}{' '}
          ▾
        </span>
      </summary>
      <div class="menu-list">
        {PERIODS.map((p) =>
          p.key === 'custom' ? (
            <button
              type="button"
              key={p.key}
              onClick={() => {
                close();
                props.onCustom();
              }}
            >
              {p.label} <span class="visually-hidden">{t('key')}</span>
              <kbd>{p.shortcut.toUpperCase()}</kbd>
            </button>
          ) : (
            <Link
              key={p.key}
              href={linkTo(scope, (v) => withPeriod(v, p.key as PeriodKey))}
              aria-current={p.key === scope.view.period ? 'true' : undefined}
              onClick={close}
            >
              {p.label} <span class="visually-hidden">{t('key')}</span>
              <kbd>{p.shortcut.toUpperCase()}</kbd>
            </Link>
          ),
        )}
      </div>
    </details>
  );
}
