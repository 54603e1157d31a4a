/** Why a single sign-on was refused, shown on the sign-in screen (loaded only then; routes/sso.ts). */
export default {
  ssoExpired: 'That sign-in was already used or took too long. Start again.',
  ssoOtherBrowser: 'That sign-in was started in another browser. Start again here.',
  ssoProviderRefused: 'Your sign-in provider did not sign you in. Start again, or ask whoever runs it.',
  ssoTokenRefused:
    'The answer of your sign-in provider failed Footfall’s checks, so you are not signed in. Tell whoever runs Footfall.',
  ssoUnverifiedEmail:
    'Your sign-in provider has not verified your e-mail address, so Footfall cannot tell who you are.',
  ssoNoEmail: 'Your sign-in provider did not share your e-mail address, so Footfall cannot tell who you are.',
  ssoNoAccount: 'You have no account here yet. Ask an owner to add your e-mail address.',
  ssoUnreachable: 'Your sign-in provider did not answer. Try again in a moment.',
};
