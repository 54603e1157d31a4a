import { t } from '../i18n/report.ts';
import { inSentence, type Tab } from './panels.ts';

/**
 * A panel's tabs: a button for each, and one menu for each group of tabs (the UTM parameters), so
 * the row fits a panel's width. The chosen tab is marked pressed (or chosen in its menu).
 */
export function PanelTabs(props: { title: string; tabs: Tab[]; current: Tab; onChoose: (tab: Tab) => void }) {
  const { tabs, current } = props;
  if (tabs.length < 2) return null;
  const groups = new Set<string>();
  return (
    <div class="tabs">
      {tabs.map((one) => {
        const group = one.group;
        if (!group) {
          return (
            <button
              type="button"
              key={one.dim}
              aria-pressed={one.dim === current.dim}
              onClick={() => props.onChoose(one)}
            >
              {one.label}
            </button>
          );
        }
        if (groups.has(group)) return null;
        groups.add(group);
        const members = tabs.filter((m) => m.group === group);
        const chosen = members.some((m) => m.dim === current.dim);
        return (
          <select
            key={group}
            class={chosen ? 'tab-select chosen' : 'tab-select'}
            aria-label={t('groupLabel', { panel: props.title, group })}
            value={chosen ? current.dim : ''}
            onChange={(e) => {
              const next = members.find((m) => m.dim === e.currentTarget.value);
              if (next) props.onChoose(next);
            }}
          >
            <option value="" disabled>
              {group}
            </option>
            {members.map((m) => (
              <option key={m.dim} value={m.dim}>
                {t('groupOption', { group, name: inSentence(m.label) })}
              </option>
            ))}
          </select>
        );
      })}
    </div>
  );
}
