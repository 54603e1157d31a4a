import { useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { Modal } from '../components/Modal.tsx';
import { ErrorNote } from '../components/ui.tsx';
import { useSubmit } from '../components/use-submit.ts';
import { t } from '../i18n/sites.ts';
import { arrangeSites, moveItem } from './arrange.ts';

type Site = Schema<'Site'>;

/**
 * The account-wide layout, edited with buttons and selects (so the keyboard does everything a
 * mouse does): the order, pins, and named groups, each site in at most one group.
 */
export function ArrangeSites(props: { sites: Site[]; layout: Schema<'SiteLayout'>; onDone: () => void }) {
  const initial = arrangeSites(props.sites, { ...props.layout, pins: [], groups: [] })[0]?.sites ?? [];
  const [order, setOrder] = useState(initial.map((s) => s.id));
  const [pins, setPins] = useState(new Set(props.layout.pins));
  const [groups, setGroups] = useState(props.layout.groups.map((g) => g.name));
  const [member, setMember] = useState(() => {
    const m = new Map<string, string>();
    for (const g of props.layout.groups) for (const id of g.sites) if (!m.has(id)) m.set(id, g.name);
    return m;
  });
  const [newGroup, setNewGroup] = useState('');
  const byId = new Map(props.sites.map((s) => [s.id, s]));
  const save = useSubmit(async () => {
    await unwrap(
      api.PUT('/api/v1/site-layout', {
        body: {
          order,
          pins: order.filter((id) => pins.has(id)),
          groups: groups.map((name) => ({ name, sites: order.filter((id) => member.get(id) === name) })),
        },
      }),
    );
    props.onDone();
  });
  const addGroup = () => {
    const name = newGroup.trim();
    if (name && !groups.includes(name)) setGroups([...groups, name]);
    setNewGroup('');
  };
  return (
    <Modal title={t('arrangeSites')} onClose={props.onDone} wide>
      <p class="muted">{t('arrangeIntro')}</p>
      <table class="data arrange">
        <thead>
          <tr>
            <th>{t('site')}</th>
            <th>{t('pinned')}</th>
            <th>{t('group')}</th>
            <th>
              <span class="visually-hidden">{t('move')}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {order.map((id, i) => {
            const domain = byId.get(id)?.domain ?? id;
            return (
              <tr key={id}>
                <td>{domain}</td>
                <td>
                  <input
                    type="checkbox"
                    aria-label={t('pinSite', { domain })}
                    checked={pins.has(id)}
                    onChange={(e) => {
                      const next = new Set(pins);
                      if (e.currentTarget.checked) next.add(id);
                      else next.delete(id);
                      setPins(next);
                    }}
                  />
                </td>
                <td>
                  <select
                    aria-label={t('groupOf', { domain })}
                    value={member.get(id) ?? ''}
                    onChange={(e) => {
                      const next = new Map(member);
                      if (e.currentTarget.value) next.set(id, e.currentTarget.value);
                      else next.delete(id);
                      setMember(next);
                    }}
                  >
                    <option value="">{t('noGroup')}</option>
                    {groups.map((g) => (
                      <option key={g} value={g}>
                        {g}
                      </option>
                    ))}
                  </select>
                </td>
                <td class="row">
                  <button
                    type="button"
                    class="icon-button"
                    aria-label={t('moveUp', { domain })}
                    disabled={i === 0}
                    onClick={() => setOrder(moveItem(order, i, -1))}
                  >
                    ↑
                  </button>
                  <button
                    type="button"
                    class="icon-button"
                    aria-label={t('moveDown', { domain })}
                    disabled={i === order.length - 1}
                    onClick={() => setOrder(moveItem(order, i, 1))}
                  >
                    ↓
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <h3 class="section">{t('groups')}</h3>
      <ul class="chips">
        {groups.map((g) => (
          <li key={g} class="chip">
            {g}
            <button
              type="button"
              class="chip-remove"
              aria-label={t('removeGroup', { name: g })}
              onClick={() => setGroups(groups.filter((x) => x !== g))}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          addGroup();
        }}
      >
        <label for="new-group" class="visually-hidden">
          {t('newGroupName')}
        </label>
        <input
          id="new-group"
          placeholder={t('newGroupName')}
          maxLength={60}
          value={newGroup}
          onInput={(e) => setNewGroup(e.currentTarget.value)}
        />
        <button type="submit" class="button secondary">
          {t('addGroup')}
        </button>
      </form>
      <ErrorNote error={save.error} />
      <div class="row modal-actions">
        <button type="button" class="button" disabled={save.busy} onClick={() => save.submit()}>
          {t('save')}
        </button>
        <button type="button" class="button secondary" onClick={props.onDone}>
          {t('cancel')}
        </button>
      </div>
    </Modal>
  );
}
