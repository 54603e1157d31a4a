import { useState } from 'preact/hooks';
import { Modal } from '../components/Modal.tsx';
import { Field } from '../components/ui.tsx';
import { t } from '../i18n/report.ts';
import { isDay, type Range } from './period.ts';

/** Two days, first and last (both included), checked before they are used. */
export function RangeForm(props: {
  title: string;
  initial: Range;
  max: string;
  onApply: (range: Range) => void;
  onClose: () => void;
}) {
  const [from, setFrom] = useState(props.initial.from);
  const [to, setTo] = useState(props.initial.to);
  const wrong =
    !isDay(from) || !isDay(to) ? t('chooseBothDays') : from > to ? t('firstAfterLast') : undefined;
  return (
    <Modal title={props.title} onClose={props.onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (!wrong) props.onApply({ from, to });
        }}
      >
        <div class="row range-fields">
          <Field label={t('firstDay')}>
            {(id) => (
              <input
                id={id}
                type="date"
                required
                min="1970-01-01"
                max={props.max}
                value={from}
                onInput={(e) => setFrom(e.currentTarget.value)}
              />
            )}
          </Field>
          <Field label={t('lastDay')}>
            {(id) => (
              <input
                id={id}
                type="date"
                required
                min="1970-01-01"
                max="9999-12-31"
                value={to}
                onInput={(e) => setTo(e.currentTarget.value)}
              />
            )}
          </Field>
        </div>
        {wrong && (from || to) && (
          <p class="field-error" role="alert">
            {wrong}
          </p>
        )}
        <div class="row modal-actions">
          <button class="button" type="submit" disabled={!!wrong}>
            {t('show')}
          </button>
          <button class="button secondary" type="button" onClick={props.onClose}>
            {t('cancel')}
          </button>
        </div>
      </form>
    </Modal>
  );
}
