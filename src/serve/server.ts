// `tx-usage serve`: the dashboard's HTTP server. Loopback only (127.0.0.1),
// on a free port unless one is given; every request must carry the token
// made at start (in its URL) and a Host header naming the loopback address
// it serves (no DNS rebinding, no other local user reading the spend). GET
// only: nothing can be written. The pages are pages.ts's; the scripts are
// served by the process (nothing is fetched from elsewhere). Live: the
// change loop (live/change-loop.ts, as `watch` uses it) brings the store up
// to date when a harness's files change, through the one queue of
// cli/answers.ts, and tells every open page over server-sent events.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Answers } from '../cli/answers.js';
import { ChangeLoop } from '../live/change-loop.js';
import { htmlAsset } from '../render/html.js';
import { DASHBOARD_JS } from './client.js';
import { renderPage } from './pages.js';

export interface Dashboard {
  url: string;
  port: number;
  close(): Promise<void>;
}

const HOST = '127.0.0.1';

function sameToken(given: string | null, token: string): boolean {
  if (!given || given.length !== token.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(token));
}

function send(res: ServerResponse, status: number, type: string, body: string, cache = 'no-store'): void {
  res.writeHead(status, {
    'content-type': type,
    'cache-control': cache,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
  });
  res.end(body);
}

export async function startDashboard(
  answers: Answers,
  o: { port?: number; home: string; poll?: boolean },
): Promise<Dashboard> {
  const token = randomBytes(24).toString('base64url');
  const events = new Set<ServerResponse>();
  let port = 0;
  const asset = (name: string) => `/assets/${name}?token=${token}`;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const host = req.headers.host ?? '';
    if (host !== `${HOST}:${port}` && host !== `localhost:${port}`)
      return send(res, 421, 'text/plain', 'refused: this server answers only to its loopback address\n');
    const url = new URL(req.url ?? '/', `http://${HOST}:${port}`);
    if (!sameToken(url.searchParams.get('token'), token))
      return send(res, 403, 'text/plain', 'refused: the URL printed at start (with its token) is needed\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain', 'read-only: GET only\n');
    if (url.pathname.startsWith('/assets/')) {
      const name = url.pathname.slice('/assets/'.length);
      const text = name === 'dashboard.js' ? DASHBOARD_JS : htmlAsset(name);
      return text === null
        ? send(res, 404, 'text/plain', 'no such asset\n')
        : send(res, 200, 'text/javascript; charset=utf-8', text, 'private, max-age=86400, immutable'); // its URL holds this run's token
    }
    if (url.pathname === '/events') {
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-store',
        connection: 'keep-alive',
      });
      res.write(': connected\n\n');
      events.add(res);
      req.on('close', () => events.delete(res));
      return;
    }
    try {
      const html = await renderPage(answers, url.pathname, url.searchParams, o.home, asset);
      if (html === null) return send(res, 404, 'text/plain', 'no such page\n');
      send(res, 200, 'text/html; charset=utf-8', html);
    } catch (e) {
      // A bad filter in the URL is the CLI's usage error, shown as the page.
      send(res, 400, 'text/plain; charset=utf-8', `${(e as Error).message}\n`);
    }
  };

  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, HOST, () => resolve());
  });
  port = (server.address() as AddressInfo).port;

  // Every opening of the store that finds the sources changed (a page's too) tells the open pages.
  const off = answers.onChange(() => {
    for (const res of events) res.write('event: change\ndata: {}\n\n');
  });
  const loop = new ChangeLoop(
    async () => {
      const r = await answers.refresh();
      loop.watch(r.folders);
    },
    { poll: o.poll },
  );
  await loop.runNow();
  const keepAlive = setInterval(() => {
    for (const res of events) res.write(': ping\n\n');
  }, 15_000);

  return {
    url: `http://${HOST}:${port}/?token=${token}`,
    port,
    async close() {
      off();
      loop.close();
      clearInterval(keepAlive);
      for (const res of events) res.end();
      await new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections?.();
    },
  };
}
