import http from 'node:http';

/** Child process: a webhook receiver on loopback that answers 204 and counts; GET /count tells. */
const port = Number(process.argv[2]);
let received = 0;
http
  .createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/count') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ received }));
      return;
    }
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(204).end();
    });
  })
  .listen(port, '127.0.0.1');
