/** The `footfall://docs/dimensions` resource: what an assistant needs to read the numbers right. */
export const DIMENSIONS_DOC = `# Footfall: dimensions, filters and numbers

## Numbers
- visitors: distinct people (a cookie id, or a daily hash on cookieless sites: a new visitor each day).
- visits: activity of one visitor without a gap of more than 30 minutes. A visit belongs to the
  period in which it starts.
- pageviews; views_per_visit; bounce_rate: share (0..1) of visits with one pageview and no custom
  event; visit_duration: seconds, average.
- revenue (with a payment connection): integer minor units of the site's currency (cents), net of
  refunds and lost disputes, each on its own day; customers: distinct payers; revenue_per_visitor.
  Each sale is credited to one visit: the last non-direct visit within 90 days (attribution
  "last"), or the visitor's first visit ("first"). Totals do not depend on the model.

## Breakdowns (visit dimensions, decided by the visit's first pageview)
channel (Direct, Organic Search, Paid Search, Organic Social, Paid Social, Email, Referral, AI
Assistant, …), referrer (host), entry_page, exit_page, campaign / source / medium / term / content
(UTM), country (ISO code), region, city, device (desktop, mobile, tablet), browser, os, language.
Also pages (paths with their pageviews, and scroll_depth (0..100) and time_on_page (seconds): the
mean deepest scroll and engaged time of the visits that reported engagement with the page, null
when none did), events (custom event names) and, in get_breakdown, hostname (the hosts the pages
were viewed on, lower case without "www.", for a site that tracks subdomains).

## Filters
"dimension:value", all must hold, at most 20: any visit dimension above, plus page:<path> (visits
that viewed the page), event:<name> (visits with that custom event), hostname:<host> (visits with
a pageview on that host), prop:<key>:<value> (visits
with a custom event whose property has that value) and goal:<name> (visits that reached that goal;
get_goals lists them). An empty value ("referrer:") matches visits without one. A tool's "segment"
takes a saved segment by name: the filters people saved and shared under that name.

## Periods
Days (YYYY-MM-DD) in the site's time zone, inclusive; by default the last 30 days. Compare with the
previous period of the same length, or a year earlier.
`;
