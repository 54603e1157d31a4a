/** The screen of every site at once (screens/AllSitesScreen.tsx). */
export default {
  allSitesPeriod: 'Period',
  backToSites: 'Back to sites',
  eachSite: 'Each site',
  share: 'Share',
  change: 'Change',
  eachSiteOwnDays: 'Each site counts its own days, in its own time zone.',
  revenuePerSite: 'Revenue and goals are in each site’s own report.',
};
