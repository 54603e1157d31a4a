/** The sites list, arranging it, a site's fields (Add a site, site settings), its proxy key and the "don't count me" link. */
export default {
  // the sites list
  sites: 'Sites',
  arrange: 'Arrange',
  addSite: 'Add a site',
  noSiteShared: 'No site is shared with you yet. Ask an owner of this Footfall to share one.',
  waitingFirstVisit: 'Waiting for the first visit',
  trackingStopped: {
    one: 'Tracking stopped: no visit for {count} day',
    other: 'Tracking stopped: no visit for {count} days',
  },
  noVisitFor: { one: 'No visit for {count} day', other: 'No visit for {count} days' },
  /** after the number of visitors, written in bold before it */
  visitorsIn30Days: { one: 'visitor in 30 days', other: 'visitors in 30 days' },
  pinned: 'Pinned',
  otherSites: 'Other sites',
  cookieless: 'Cookieless',
  cookielessTitle:
    'Counted without cookies: a daily hash identifies visitors, so nobody is recognised the next day',
  // arranging
  arrangeSites: 'Arrange sites',
  arrangeIntro: 'Everyone who signs in sees this order. Pinned sites come first, then each group.',
  site: 'Site',
  group: 'Group',
  move: 'Move',
  pinSite: 'Pin {domain}',
  groupOf: 'Group of {domain}',
  noGroup: 'No group',
  moveUp: 'Move {domain} up',
  moveDown: 'Move {domain} down',
  groups: 'Groups',
  removeGroup: 'Remove the group {name}',
  newGroupName: 'New group name',
  addGroup: 'Add the group',
  save: 'Save',
  cancel: 'Cancel',
  // a site's fields
  domain: 'Domain',
  domainHint: 'The address of the site; a pasted URL is fine. www. is optional.',
  timeZone: 'Time zone',
  timeZoneHint: 'Days and hours in reports follow it.',
  currency: 'Currency',
  currencyHint: 'Revenue is shown in it.',
  cookielessHint: '— no cookie: a daily hash counts visitors, so a visitor is new again each day.',
  recordCities: 'Record cities',
  recordCitiesHint: '— off: countries and regions only.',
  keepVisitsFor: 'Keep visits for',
  retentionKeepsAll:
    'Older visits and their events are deleted each night (30 to 36500 days); payments stay. Empty keeps every visit.',
  retentionFollows: {
    one: 'Older visits and their events are deleted each night (30 to 36500 days); payments stay. Empty follows this server: {count} day.',
    other:
      'Older visits and their events are deleted each night (30 to 36500 days); payments stay. Empty follows this server: {count} days.',
  },
  /** after the number of days visits are kept */
  days: 'days',
  umamiWebsiteId: 'Umami website id',
  umamiHint:
    'Moving from Umami? Enter the website id Umami shows for this site and point its script at this server: its visits count here until you change the tag.',
  icon: 'Icon',
  iconHint: 'The address of an image (https), or empty for a letter.',
  colour: 'Colour',
  noColour: 'No colour',
  // the proxy key
  proxyKey: 'Proxy key: ',
  hidden: 'hidden',
  hideKey: 'Hide the key',
  showKey: 'Show the key',
  copyKey: 'Copy the key',
  rotate: 'Rotate…',
  rotateWarning: 'Servers using the current key will be refused until they get the new one.',
  rotateKey: 'Rotate the key',
  keepIt: 'Keep it',
  // don't count me
  ignoreIntro:
    'Open this link once in each browser you use for your site: that browser then sends nothing to Footfall, on every page, until you open {link}.',
  ignoreUnmarkLink: 'the same address with =0',
  openInBrowser: 'Open it in this browser',
  copyLink: 'Copy the link',
  // all sites at once
  allSites: 'All sites',
  allSitesCard: 'Every site together: totals, each site’s share, top sources and pages',
};
