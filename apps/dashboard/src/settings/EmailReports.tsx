import { useRef, useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { ErrorNote, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { t } from '../i18n/account.ts';
import { formatDateTime } from '../i18n/format.ts';
import { language } from '../i18n/language.ts';
import { rangeLabel } from '../site/period.ts';

type Line = Pick<Schema<'EmailReportSite'>, 'site' | 'weekly' | 'monthly' | 'last_failure'>;
type Choice = Schema<'EmailReportChoice'>;
type Period = 'week' | 'month';
type Sent = { sent_to: string; period: Schema<'Period'> };

/** the note saying nothing is sent yet, which the disabled send buttons point to */
const MAIL_NOTE = 'email-reports-mail';

/**
 * The signed-in person's e-mail reports: per site they may read, the weekly and the monthly
 * report ticked or not (each change saved at once), and one sent now on request; with two sites or
 * more, first the same for one e-mail of them all. While the server has no SMTP set up the choices
 * are still kept, and a note says nothing is sent.
 */
export function EmailReports() {
  const list = useLoad((signal) => unwrap(api.GET('/api/v1/account/email-reports', { signal })), []);
  const mailReady = list.data?.mail_ready ?? false;
  const all = list.data && list.data.sites.length > 1 ? list.data.all_sites : null;
  return (
    <div class="stack">
      <p class="muted">{t('emailReportsHint')}</p>
      {list.data && !mailReady && (
        <p class="muted small" id={MAIL_NOTE}>
          {t('emailReportsNoMail', { variable: 'FOOTFALL_SMTP_URL' })}
        </p>
      )}
      <ErrorNote error={list.error} />
      {!list.data && !list.error && <Spinner />}
      {list.data && list.data.sites.length === 0 && <p>{t('emailReportsNoSite')}</p>}
      {list.data && list.data.sites.length > 0 && (
        <ul class="alert-list">
          {all && (
            <ReportRow
              key={all.site}
              line={all}
              title={t('allSitesTitle', { count: all.sites })}
              name={t('allSitesOf', { count: all.sites })}
              hint={t('allSitesReportHint')}
              mailReady={mailReady}
            />
          )}
          {list.data.sites.map((line) => (
            <ReportRow
              key={line.site}
              line={line}
              title={line.domain}
              name={line.domain}
              mailReady={mailReady}
            />
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * One report's line: `title` shows, `name` goes where a domain does in the buttons' labels (a site's
 * domain, or "all 4 sites").
 */
function ReportRow(props: { line: Line; title: string; name: string; hint?: string; mailReady: boolean }) {
  const { line, mailReady, title } = props;
  const site = line.site;
  const domain = props.name;
  // The boxes change at once and stay enabled (disabling the box just pressed would drop the
  // keyboard's focus): changes are sent one after another, each with what is wanted by then, and
  // a refused one puts the boxes back to what the server holds.
  const [choice, setChoice] = useState<Choice>({ weekly: line.weekly, monthly: line.monthly });
  const wanted = useRef<Choice>(choice);
  const stored = useRef<Choice>(choice);
  const queue = useRef<Promise<void>>(Promise.resolve());
  const [changeError, setChangeError] = useState<unknown>();
  const change = (key: keyof Choice, on: boolean) => {
    wanted.current = { ...wanted.current, [key]: on };
    setChoice(wanted.current);
    setChangeError(undefined);
    queue.current = queue.current.then(async () => {
      const body = wanted.current;
      if (body.weekly === stored.current.weekly && body.monthly === stored.current.monthly) return;
      try {
        const saved = await unwrap(
          // written in the language the person reads the dashboard in
          api.PUT('/api/v1/account/email-reports/{site}', {
            params: { path: { site } },
            body: { ...body, language },
          }),
        );
        stored.current = { weekly: saved.weekly, monthly: saved.monthly };
        if (wanted.current === body) {
          wanted.current = stored.current;
          setChoice(stored.current);
        }
      } catch (e) {
        wanted.current = stored.current;
        setChoice(stored.current);
        setChangeError(e);
      }
    });
  };

  // sending keeps the buttons enabled too: a second press while one is on its way does nothing
  const [sending, setSending] = useState<Period | null>(null);
  const [sent, setSent] = useState<Sent | null>(null);
  const [sendError, setSendError] = useState<unknown>();
  const send = async (period: Period) => {
    if (sending) return;
    setSending(period);
    setSent(null);
    setSendError(undefined);
    try {
      setSent(
        await unwrap(
          api.POST('/api/v1/account/email-reports/{site}/send', {
            params: { path: { site } },
            body: { period, language },
          }),
        ),
      );
    } catch (e) {
      setSendError(e);
    } finally {
      setSending(null);
    }
  };

  return (
    <li class="alert-destination stack">
      <strong class="alert-target">{title}</strong>
      {props.hint && <p class="muted small">{props.hint}</p>}
      <div class="alert-kinds">
        <label class="check">
          <input
            type="checkbox"
            aria-label={t('weeklyReportOf', { domain })}
            checked={choice.weekly}
            onChange={(e) => change('weekly', e.currentTarget.checked)}
          />
          <span>{t('weekly')}</span>
        </label>
        <label class="check">
          <input
            type="checkbox"
            aria-label={t('monthlyReportOf', { domain })}
            checked={choice.monthly}
            onChange={(e) => change('monthly', e.currentTarget.checked)}
          />
          <span>{t('monthly')}</span>
        </label>
      </div>
      <div class="row">
        <span>{t('sendOneNow')}</span>
        <button
          type="button"
          class="button small secondary"
          disabled={!mailReady}
          aria-describedby={mailReady ? undefined : MAIL_NOTE}
          aria-label={t('sendLastWeekOf', { domain })}
          onClick={() => send('week')}
        >
          {t('lastWeek')}
        </button>
        <button
          type="button"
          class="button small secondary"
          disabled={!mailReady}
          aria-describedby={mailReady ? undefined : MAIL_NOTE}
          aria-label={t('sendLastMonthOf', { domain })}
          onClick={() => send('month')}
        >
          {t('lastMonth')}
        </button>
        <span class="muted small alert-target" role="status">
          {sending
            ? t('sendingReport')
            : sent
              ? t('reportSentTo', { email: sent.sent_to, period: rangeLabel(sent.period) })
              : ''}
        </span>
      </div>
      {line.last_failure && (
        <p class="small" role="note">
          {t('reportNotDelivered', {
            period: rangeLabel(line.last_failure.period),
            message: line.last_failure.message,
          })}
          <br />
          {line.last_failure.next_try_at
            ? t('reportTryingAgain', { when: formatDateTime(line.last_failure.next_try_at) })
            : t('reportGivenUp')}
        </p>
      )}
      <ErrorNote error={changeError ?? sendError} />
    </li>
  );
}
