import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';

/** One message the test's mail server took. */
export interface ReceivedMail {
  secure: boolean;
  user: string | undefined;
  raw: string;
}

export interface TestMailServer {
  port: number;
  /** the self-signed certificate: Footfall's processes trust it through NODE_EXTRA_CA_CERTS */
  cert: string;
  /** FOOTFALL_SMTP_URL for it (user `alerts`, password `smtp-password`) */
  url: string;
  mails: ReceivedMail[];
  close(): Promise<void>;
}

/**
 * A real SMTP server (smtp-server from npm) on 127.0.0.1 that offers STARTTLS with a self-signed
 * certificate made in `dir` and takes one user, recording every message it is given.
 */
export async function startMailServer(dir: string): Promise<TestMailServer> {
  const key = join(dir, 'smtp.key');
  const cert = join(dir, 'smtp.crt');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  const mails: ReceivedMail[] = [];
  const smtp = new SMTPServer({
    key: readFileSync(key),
    cert: readFileSync(cert),
    authMethods: ['PLAIN', 'LOGIN'],
    onAuth(auth, _session, callback) {
      if (auth.username === 'alerts' && auth.password === 'smtp-password')
        callback(null, { user: auth.username });
      else callback(new Error('bad credentials'));
    },
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (c: Buffer) => {
        raw += c.toString('utf8');
      });
      stream.on('end', () => {
        mails.push({ secure: session.secure, user: session.user as string | undefined, raw });
        callback();
      });
    },
  });
  const port = await new Promise<number>((resolve) =>
    smtp.listen(0, '127.0.0.1', () => resolve((smtp.server.address() as AddressInfo).port)),
  );
  return {
    port,
    cert,
    url: `smtp://alerts:smtp-password@127.0.0.1:${port}`,
    mails,
    close: () => new Promise((r) => smtp.close(() => r())),
  };
}
