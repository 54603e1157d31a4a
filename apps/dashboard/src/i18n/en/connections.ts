/** Site settings that connect the site elsewhere: payments, Google Search Console, share links, and a viewer's sites. */
export default {
  save: 'Save',
  cancel: 'Cancel',
  connect: 'Connect',
  disconnectAsk: 'Disconnect…',
  never: 'never',
  // payments: the providers
  anythingElse: 'Anything else',
  anythingElseOption: 'Anything else (custom webhook)',
  pasteStripe:
    "Paste a restricted key (rk_live_… or rk_test_…) with read access and permission to write webhook endpoints (the documentation's Stripe page shows how to make it).",
  pastePaddle:
    "Paste an API key (pdl_live_apikey_… or pdl_sdbx_apikey_…) that reads transactions and adjustments and writes notification settings (the documentation's Paddle page shows how to make it).",
  pasteLemonSqueezy:
    "Paste an API key (Settings → API) made in live or test mode (the documentation's Lemon Squeezy page shows how to make it).",
  pastePolar:
    "Paste an Organization Access Token with the scopes orders:read, refunds:read and webhooks:write (the documentation's Polar page shows how to make it).",
  pasteDodo:
    "Paste an API key (Developer → API Keys) of live or test mode (the documentation's Dodo Payments page shows how to make it).",
  // payments: a connection
  lastWebhook: 'Last webhook: {when}',
  waitingForSecret: 'Waiting for the signing secret',
  waitingDeliveries: {
    one: 'Waiting for the signing secret: {count} delivery answered "retry later", {provider} sends it again',
    other:
      'Waiting for the signing secret: {count} deliveries answered "retry later", {provider} sends them again',
  },
  reconciled: 'Reconciled: {when}',
  reconciliationFailed: 'Reconciliation failed ({when}): {error}',
  signingSecretFrom: 'Signing secret from {provider}',
  saveSecret: 'Save the secret',
  customWebhook: 'custom webhook',
  sandboxTest: 'sandbox (test payments)',
  live: 'live',
  connectedWithKey: 'connected with an API key',
  setUpByHand: 'set up by hand',
  webhookUrl: 'Webhook URL: ',
  copyUrl: 'Copy the URL',
  reconciling: 'Reconciling…',
  reconcileNow: 'Reconcile now',
  newSecretAsk: 'New signing secret…',
  pasteNewSecret: 'Paste a new signing secret',
  rotateWarning: 'Webhooks signed with the current secret will be refused until the sender has the new one.',
  disconnectWarning: 'Its stored webhooks and its payments are removed from every report.',
  disconnectWarningEndpoint:
    'Its stored webhooks and its payments are removed from every report, and the webhook endpoint at {provider} is deleted.',
  makeNewSecret: 'Make a new secret',
  disconnect: 'Disconnect',
  // payments: connecting
  provider: 'Provider',
  howToConnect: 'How to connect',
  withApiKey: 'With an API key',
  byHand: 'By hand',
  providerApiKey: '{provider} API key',
  keyHint:
    '{paste} Footfall creates the webhook itself, keeps the key sealed and reads payments back every six hours; the key decides live or sandbox.',
  customNote:
    'Your checkout or billing system posts each payment, refund and dispute to a webhook URL, signed with a secret Footfall issues. The format is in the documentation (payments).',
  manualNote:
    'Footfall shows a webhook URL to add in {provider}; paste the signing secret {provider} then shows. Without an API key nothing is reconciled: payments come from webhooks only.',
  nameOptional: 'Name (optional)',
  sandboxOnly: 'Sandbox (test payments only)',
  checkingKey: 'Checking the key with {provider}…',
  paymentsIntro:
    'Connect where your payments happen; the report then shows which traffic pays, credited to the visit that brought each buyer.',
  copySecret: 'Copy the secret',
  secretShownOnce: '{name}: copy the signing secret now, it is not shown again. Webhook URL: {url}',
  noPaymentConnection: 'No payment connection yet.',
  // Search Console
  searchConsoleIntro:
    'With Search Console, the AI & search panel marks the pages search engines send people to that no AI robot read ("Not read").',
  connectedTo: 'Connected to {property} as {email}.',
  clicksPulled: 'Clicks pulled {when}.',
  lastPullFailed: 'The last pull failed ({when}): {error}',
  disconnectSearchConsole: 'Disconnect: the key and the clicks are deleted',
  connectSearchConsole: 'Connect Search Console',
  property: 'Property',
  propertyHint: 'sc-domain:example.com, or a URL prefix such as https://example.com/',
  serviceAccountKey: 'Service account key (JSON)',
  serviceAccountKeyHint:
    'Create a service account in Google Cloud, download its JSON key and paste it here; add its address as a user of the property in Search Console. The key is stored encrypted and never shown again.',
  connecting: 'Connecting…',
  // share links
  sharesIntro:
    "A share link opens this site's report, read only, for anyone who has it: no live view, no single visitors, no settings.",
  noShareLink: 'No share link yet.',
  newShareLink: 'New share link',
  labelOptional: 'Label (optional)',
  labelHint: 'for you: who the link is for',
  passwordOptional: 'Password (optional)',
  passwordHint: '6 characters at least; people are asked for it before the report opens',
  showChartNotes: "Show the chart's notes (never who wrote them)",
  createShareLink: 'Create a share link',
  shareLink: 'Share link',
  password: 'Password',
  noPassword: 'No password',
  showsNotes: 'shows notes',
  noNotes: 'no notes',
  made: 'made {date}',
  opened: 'opened {date}',
  notOpenedYet: 'not opened yet',
  copyLink: 'Copy the link',
  otherInstanceKey: 'The link was made with another instance key: revoke it and make a new one.',
  showNotes: 'Show notes',
  newPasswordOf: 'New password of {name}',
  newPassword: 'New password',
  changePassword: 'Change the password',
  changePasswordOf: 'Change the password of {name}',
  addPassword: 'Add a password',
  addPasswordOf: 'Add a password of {name}',
  removePassword: 'Remove the password',
  removePasswordOf: 'Remove the password of {name}',
  revokeAsk: 'Revoke…',
  revokeName: 'Revoke {name}',
  revokeConfirm: 'Revoke: the link stops working',
  // a viewer's sites
  sitesSeenBy: 'Sites {email} sees',
  saveSitesOf: 'Save the sites of {email}',
  saved: 'Saved.',
};
