import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { t } from '../i18n/common.ts';
import { navigate, route } from '../router.ts';
import { isOwner, session, signOut } from '../session.ts';
import { chooseTheme, type ThemeChoice, themeChoice } from '../theme.ts';
import { checkForUpdate, newerRelease } from '../update-check.ts';
import { Modal } from './Modal.tsx';
import { SHORTCUTS, useShortcuts } from './shortcuts.ts';
import { Link } from './ui.tsx';

function NavLink(props: { href: string; match: RegExp; children: ComponentChildren }) {
  const current = props.match.test(route.value.path);
  return (
    <Link href={props.href} aria-current={current ? 'page' : undefined}>
      {props.children}
    </Link>
  );
}

const THEMES: [ThemeChoice, string][] = [
  ['system', t('themeSystem')],
  ['light', t('themeLight')],
  ['dark', t('themeDark')],
];

/** The person's menu: their account, the colour scheme, the shortcuts, sign-out. */
function AccountMenu(props: { onHelp: () => void }) {
  const ref = useRef<HTMLDetailsElement>(null);
  const close = () => ref.current?.removeAttribute('open');
  useEffect(() => {
    const outside = (e: Event) => {
      if (ref.current && !ref.current.contains(e.target as Node)) close();
    };
    document.addEventListener('click', outside);
    return () => document.removeEventListener('click', outside);
  }, []);
  return (
    <details
      class="menu"
      ref={ref}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && ref.current?.open) {
          e.preventDefault();
          close();
          ref.current.querySelector('summary')?.focus();
        }
      }}
    >
      <summary>
        <span aria-hidden="true">{session.value?.person.email.charAt(0).toUpperCase()} ▾</span>
        <span class="visually-hidden">
          {t('yourAccountOf', { email: session.value?.person.email ?? '' })}
        </span>
      </summary>
      <div class="menu-list">
        <p class="menu-label">{session.value?.person.email}</p>
        <Link href="/account" onClick={close}>
          {t('yourAccount')}
        </Link>
        <button
          type="button"
          onClick={() => {
            close();
            props.onHelp();
          }}
        >
          {t('keyboardShortcuts')}
        </button>
        <hr />
        <fieldset>
          <legend class="menu-label">{t('colours')}</legend>
          {THEMES.map(([value, label]) => (
            <button
              type="button"
              key={value}
              aria-pressed={themeChoice.value === value}
              onClick={() => chooseTheme(value)}
            >
              <span aria-hidden="true">{themeChoice.value === value ? '● ' : '○ '}</span>
              {label}
            </button>
          ))}
        </fieldset>
        <hr />
        <button
          type="button"
          onClick={async () => {
            close();
            await signOut();
            navigate('/login');
          }}
        >
          {t('signOut')}
        </button>
      </div>
    </details>
  );
}

export function ShortcutsHelp(props: { onClose: () => void }) {
  return (
    <Modal title={t('keyboardShortcuts')} onClose={props.onClose}>
      <p class="muted">{t('shortcutsNote')}</p>
      <table class="data">
        <tbody>
          {SHORTCUTS.map(([key, what]) => (
            <tr key={key}>
              <td>
                <kbd>{key}</kbd>
              </td>
              <td>{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Modal>
  );
}

/** The frame of every signed-in screen: header, navigation, the update note, the help. */
export function Layout(props: { children: ComponentChildren }) {
  const [help, setHelp] = useState(false);
  const info = session.value;
  useShortcuts({ '?': () => setHelp(true), g: () => navigate('/all') });
  useEffect(() => {
    const url = info?.instance.releases_url;
    if (url) void checkForUpdate(info.instance.version, url);
  }, [info?.instance.releases_url, info?.instance.version]);
  const release = newerRelease.value;
  return (
    <>
      <a class="skip-link" href="#main">
        {t('skipToContent')}
      </a>
      <header class="top">
        <div class="top-inner">
          <Link class="brand" href="/">
            Footfall
          </Link>
          <nav class="nav" aria-label={t('navMain')}>
            <NavLink href="/sites" match={/^\/(sites.*)?$/}>
              {t('navSites')}
            </NavLink>
            <NavLink href="/health" match={/^\/health/}>
              {t('navHealth')}
            </NavLink>
            {isOwner.value && (
              <NavLink href="/settings/people" match={/^\/settings/}>
                {t('navSettings')}
              </NavLink>
            )}
            <AccountMenu onHelp={() => setHelp(true)} />
          </nav>
        </div>
      </header>
      {release && (
        <div class="banner">
          <p class="notice" role="status">
            {t('updateAvailable', { version: release.version, current: info?.instance.version ?? '' })}{' '}
            <a href={release.url} rel="noopener noreferrer" target="_blank">
              {t('whatIsNew')}
            </a>
          </p>
        </div>
      )}
      {props.children}
      {help && <ShortcutsHelp onClose={() => setHelp(false)} />}
    </>
  );
}
