/** The signed-out screens (sign-in, setup, choosing one's own password) and adding a site. */
export default {
  twoStepSignIn: 'Two-step sign-in',
  code: 'Code',
  codeHint: 'The 6 digits your authenticator app shows, or a recovery code.',
  signIn: 'Sign in',
  email: 'E-mail',
  password: 'Password',
  // setup
  passwordsDiffer: 'The two passwords differ.',
  isSetUp: 'Footfall is set up',
  ownerExists: 'The first owner exists already.',
  createFirstOwner: 'Create the first owner',
  openSetupLink: 'Open the setup link that `footfall start` printed: it carries the setup token.',
  passwordLength: '10 characters or more.',
  passwordAgain: 'Password again',
  createOwner: 'Create the owner',
  // a new password
  chooseOwnPassword: 'Choose your own password',
  replaceGiven: 'You signed in with a password someone else was given. Replace it with one only you know.',
  givenPassword: 'The password you were given',
  newPassword: 'New password',
  saveAndContinue: 'Save and continue',
  signedInAs: 'Signed in as {email}',
  // adding a site
  addSite: 'Add a site',
  backToSites: 'Back to sites',
  addTheSite: 'Add the site',
  // single sign-on (routes/sso.ts)
  ssoWith: 'Sign in with {name}',
  orPassword: 'or with your password',
  breakGlass: 'Sign in with a password (the break-glass owner)',
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
