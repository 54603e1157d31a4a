import { t } from '../i18n/sso.ts';

/** What the sign-in screen says of a refused single sign-on (`?sso_error=`, routes/sso.ts). */
const SSO_ERRORS = {
  expired: 'ssoExpired',
  other_browser: 'ssoOtherBrowser',
  provider_refused: 'ssoProviderRefused',
  token_refused: 'ssoTokenRefused',
  unverified_email: 'ssoUnverifiedEmail',
  no_email: 'ssoNoEmail',
  no_account: 'ssoNoAccount',
  unreachable: 'ssoUnreachable',
} as const;

/**
 * Why a single sign-on was refused. Loaded only when the sign-in screen is opened with
 * `?sso_error=`, so its words cost the first view nothing.
 */
export function SsoRefusal({ code }: { code: string }) {
  const key = SSO_ERRORS[code as keyof typeof SSO_ERRORS];
  if (!key) return null;
  return (
    <p class="error" role="alert">
      {t(key)}
    </p>
  );
}
