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
  ssoWith: 'Sign in with {name}',
  orPassword: 'or with your password',
  breakGlass: 'Sign in with a password (the break-glass owner)',
};
