import { Link } from '../components/ui.tsx';
import { t } from '../i18n/report.ts';
import { displayValue, filterLabel } from './panels.ts';
import { linkTo, type Scope } from './scope.ts';
import { splitFilter, withoutFilter } from './view.ts';

/** The filters in force, each removable; they all hold at once. */
export function FilterChips({ scope }: { scope: Pick<Scope, 'path' | 'view'> }) {
  const filters = scope.view.filters;
  if (filters.length === 0) return null;
  return (
    <div class="filters">
      <ul class="chips" aria-label={t('filters')}>
        {filters.map((f) => {
          const [dimension, value] = splitFilter(f);
          const text = t('filterIs', {
            dimension: filterLabel(dimension),
            value: displayValue(dimension, value),
          });
          return (
            <li class="chip" key={f}>
              <span>{text}</span>
              <Link
                class="chip-remove"
                href={linkTo(scope, (v) => withoutFilter(v, f))}
                aria-label={t('removeFilter', { filter: text })}
              >
                ×
              </Link>
            </li>
          );
        })}
      </ul>
      {filters.length > 1 && (
        <Link class="clear-filters" href={linkTo(scope, { filters: [] })}>
          {t('clearAll')}
        </Link>
      )}
    </div>
  );
}
