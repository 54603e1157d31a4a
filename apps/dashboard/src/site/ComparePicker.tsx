import { t } from '../i18n/report.ts';
import { navigate } from '../router.ts';
import { linkTo, type Scope } from './scope.ts';
import type { CompareKey } from './view.ts';

const CHOICES: [CompareKey, string][] = [
  ['off', t('noComparison')],
  ['previous', t('comparePrevious')],
  ['year', t('compareYear')],
  ['custom', t('compareCustom')],
];

/** The compared period: none, the one before, a year before, or two chosen days. */
export function ComparePicker(props: { scope: Scope; onCustom: () => void }) {
  const { scope } = props;
  return (
    <div class="compare-picker">
      <label for="compare" class="visually-hidden">
        {t('compareWith')}
      </label>
      <select
        id="compare"
        value={scope.view.compare}
        onChange={(e) => {
          const value = e.currentTarget.value as CompareKey;
          if (value === 'custom') props.onCustom();
          else navigate(linkTo(scope, { compare: value, cfrom: undefined, cto: undefined }));
        }}
      >
        {CHOICES.map(([key, label]) => (
          <option key={key} value={key}>
            {label}
          </option>
        ))}
      </select>
    </div>
  );
}
