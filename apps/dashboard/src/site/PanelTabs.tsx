import type { Tab } from './panels.ts';

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
      {tabs.map((t) => {
        if (!t.group) {
          return (
            <button
              type="button"
              key={t.dim}
              aria-pressed={t.dim === current.dim}
              onClick={() => props.onChoose(t)}
            >
              {t.label}
            </button>
          );
        }
        if (groups.has(t.group)) return null;
        groups.add(t.group);
        const members = tabs.filter((m) => m.group === t.group);
        const chosen = members.some((m) => m.dim === current.dim);
        return (
          <select
            key={t.group}
            class={chosen ? 'tab-select chosen' : 'tab-select'}
            aria-label={`${props.title}: ${t.group} parameter`}
            value={chosen ? current.dim : ''}
            onChange={(e) => {
              const next = members.find((m) => m.dim === e.currentTarget.value);
              if (next) props.onChoose(next);
            }}
          >
            <option value="" disabled>
              {t.group}
            </option>
            {members.map((m) => (
              <option key={m.dim} value={m.dim}>
                {t.group} {m.label.toLowerCase()}
              </option>
            ))}
          </select>
        );
      })}
    </div>
  );
}
