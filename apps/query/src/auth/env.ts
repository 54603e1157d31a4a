import type { ActiveSession, ControlDb, PersonRow, Site, SiteScope } from '@footfall/control';

/** Who is calling. API keys and FOOTFALL_API_TOKEN are read-only; a key may be limited to sites. */
export type Principal =
  | { kind: 'session'; role: 'owner' | 'viewer'; person: PersonRow; session: ActiveSession; scope: SiteScope }
  | { kind: 'api-key'; role: 'viewer'; keyId: string; scope: SiteScope }
  | { kind: 'api-token'; role: 'viewer'; scope: 'all' }
  /** a share link's credential: its one site, the reads of SHARE_READS (access.ts) */
  | { kind: 'share'; role: 'viewer'; shareId: string; showNotes: boolean; scope: ReadonlySet<string> };

/** The Hono environment of `/api/v1` routes: the guard sets these before any handler runs. */
export interface AuthEnv {
  Variables: {
    /** undefined on public, setup and sign-in routes */
    principal: Principal | undefined;
    control: ControlDb;
    /** set by `siteRead()` */
    site: Site;
    /**
     * Whether the same credentials may still read `site` now (the session, key or access may have
     * ended since the guard let the request in): a live stream asks while it stays open.
     */
    mayStillRead: (site: string) => Promise<boolean>;
  };
}
