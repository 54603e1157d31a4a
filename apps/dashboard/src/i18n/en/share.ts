/** A shared dashboard, /share/<token>: opening the link (with its password) and the page around the report. */
export default {
  linkOpensNothing: 'This link does not open anything',
  linkRevoked: 'It may have been revoked. Ask whoever sent it for a new one.',
  opening: 'Opening the shared dashboard',
  openShared: 'Open the shared dashboard',
  sharedDashboard: 'A shared dashboard',
  passwordProtected: 'This dashboard is protected by a password.',
  password: 'Password',
  open: 'Open',
  documentTitle: '{domain} · shared with Footfall',
  readOnly: 'A shared dashboard, read only',
  countedBy: 'Counted by Footfall.',
};
