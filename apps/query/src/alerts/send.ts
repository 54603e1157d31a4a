import type { SmtpSettings } from '@footfall/config';
import { BlockedDestination, type GuardOptions, guardedFetch } from '@footfall/http';
import { footfallVersion } from '@footfall/instance';
import { signCustom } from '@footfall/payments';
import type { Transporter } from 'nodemailer';
import { type AlertMessage, alertHtml, alertText } from './message.ts';

/** How long one attempt may take, connection included. */
const ATTEMPT_MS = 10_000;

/** Where an alert goes, opened from the control database. */
export interface Destination {
  channel: 'webhook' | 'email';
  target: string;
  host: string;
  secret: string | null;
}

/** One e-mail: text and HTML parts, extra headers, inline images (`cid`) attached. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
  headers?: Record<string, string>;
  attachments?: { filename: string; content: Buffer; cid: string; contentType: string }[];
}

export interface SenderOptions {
  smtp: SmtpSettings | undefined;
  mailFrom: string | undefined;
  /** the outgoing-request guard's options (FOOTFALL_UNSAFE_OUTBOUND_ALLOW in tests) */
  guard: GuardOptions;
}

/**
 * Sends one alert to one destination, once: a webhook is POSTed the alert as JSON, signed like
 * Footfall's own custom payment webhook (`Footfall-Timestamp`, `Footfall-Signature: v1=<hex>`,
 * HMAC-SHA256 of `<timestamp>.<body>` with the destination's secret), through the guard that
 * refuses private addresses at every hop; an e-mail goes through FOOTFALL_SMTP_URL (STARTTLS
 * required on smtp://). Answers null when it was taken, or why not, in words that name at most the
 * destination's host, never the URL or the address.
 */
export class AlertSender {
  readonly #options: SenderOptions;
  #mail: Promise<Transporter> | undefined;

  constructor(options: SenderOptions) {
    this.#options = options;
  }

  /** Whether e-mail can be sent at all (FOOTFALL_SMTP_URL set; FOOTFALL_MAIL_FROM has a default). */
  get mailReady(): boolean {
    return this.#options.smtp !== undefined && this.#options.mailFrom !== undefined;
  }

  async send(destination: Destination, message: AlertMessage): Promise<string | null> {
    try {
      return destination.channel === 'webhook'
        ? await this.#post(destination, message)
        : await this.#mailTo(destination, message);
    } catch (error) {
      return outboundFailure(error);
    }
  }

  async #post(destination: Destination, message: AlertMessage): Promise<string | null> {
    const body = JSON.stringify(message);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const res = await guardedFetch(
      destination.target,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': `Footfall/${footfallVersion()} (alerts)`,
          'footfall-alert-id': message.id,
          'footfall-timestamp': timestamp,
          'footfall-signature': signCustom(destination.secret ?? '', timestamp, body),
        },
        body,
        signal: AbortSignal.timeout(ATTEMPT_MS),
      },
      this.#options.guard,
    );
    await res.body?.cancel();
    return res.ok ? null : `${destination.host} answered ${res.status}`;
  }

  #mailTo(destination: Destination, message: AlertMessage): Promise<string | null> {
    return this.mail({
      to: destination.target,
      subject: message.title,
      text: alertText(message),
      html: alertHtml(message),
      headers: { 'X-Footfall-Alert-Id': message.id },
    });
  }

  /**
   * Sends one e-mail through FOOTFALL_SMTP_URL (alerts, e-mail reports): null once the mail server
   * took it, else why not (its answer's code, or the connection's error).
   */
  async mail(m: Mail): Promise<string | null> {
    const { mailFrom } = this.#options;
    if (!this.mailReady || mailFrom === undefined) return 'e-mail is not set up (FOOTFALL_SMTP_URL)';
    try {
      const transport = await this.#transport();
      await transport.sendMail({ from: mailFrom, ...m });
      return null;
    } catch (error) {
      return outboundFailure(error);
    }
  }

  /** One SMTP transport, made on first use (nodemailer is loaded only when e-mail is sent). */
  #transport(): Promise<Transporter> {
    const smtp = this.#options.smtp!;
    this.#mail ??= import('nodemailer').then((nodemailer) =>
      nodemailer.createTransport({
        host: smtp.host,
        port: smtp.port,
        secure: smtp.secure,
        // smtp:// must upgrade with STARTTLS before anything is sent: no password in the clear
        requireTLS: !smtp.secure,
        auth: smtp.user === undefined ? undefined : { user: smtp.user, pass: smtp.password ?? '' },
        connectionTimeout: ATTEMPT_MS,
        greetingTimeout: ATTEMPT_MS,
        socketTimeout: ATTEMPT_MS,
      }),
    );
    // a failed load is tried again with the next e-mail
    this.#mail.catch(() => {
      this.#mail = undefined;
    });
    return this.#mail;
  }

  close(): void {
    this.#mail?.then(
      (t) => t.close(),
      () => undefined,
    );
  }
}

/** A failure in words without the URL: refused, timed out, or the connection's error code. */
export function outboundFailure(error: unknown): string {
  if (error instanceof BlockedDestination) return `refused: ${error.message}`;
  const e = error as {
    name?: string;
    code?: string;
    cause?: { code?: string; name?: string };
    responseCode?: number;
  };
  if (e.name === 'TimeoutError' || e.cause?.name === 'ConnectTimeoutError')
    return 'no answer within 10 seconds';
  if (e.cause instanceof BlockedDestination) return `refused: ${e.cause.message}`;
  if (typeof e.responseCode === 'number') return `the mail server answered ${e.responseCode}`;
  return `could not connect (${e.cause?.code ?? e.code ?? 'network error'})`;
}
