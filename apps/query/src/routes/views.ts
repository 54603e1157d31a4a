import type { ApiKeyInfo, Person, Site, ViewerAccess } from '@footfall/control';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A person in API answers. */
export const personJson = (p: Person) => ({
  id: p.id,
  email: p.email,
  role: p.role,
  two_step: p.twoStep,
  must_change_password: p.mustChangePassword,
  created_at: iso(p.createdAt),
});

/** A site in API answers; the proxy key only for owners (it is a secret of Settings, Install). */
export const siteJson = (s: Site, owner: boolean) => ({
  id: s.id,
  domain: s.domain,
  timezone: s.timezone,
  currency: s.currency,
  cookieless: s.cookieless,
  city_recording: s.cityRecording,
  icon: s.icon,
  colour: s.colour,
  consent_bar: s.consentBar,
  consent_text: s.consentText,
  consent_background: s.consentBackground,
  consent_foreground: s.consentForeground,
  created_at: iso(s.createdAt),
  modules: s.modules,
  retention_days: s.retentionDays,
  umami_website_id: s.umamiWebsiteId,
  // the lists name owners' own addresses: for owners only, as the proxy key
  ...(owner ? { proxy_key: s.proxyKey, shields: s.shields } : {}),
});

export const apiKeyJson = (k: ApiKeyInfo) => ({
  id: k.id,
  name: k.name,
  start: k.start,
  created_at: iso(k.createdAt),
  last_used_at: iso(k.lastUsedAt),
  sites: k.sites,
});

export const accessJson = (a: ViewerAccess) => ({ person_id: a.personId, email: a.email, sites: a.sites });
