/**
 * The bench's FTP server: a child process (forked by reconciliation.ts) running the tests' ftp-srv on loopback, so
 * taking the upload does not share the gateway's event loop. Answers `{ start: true }` with its port and the directory
 * uploads land in; closes when the parent disconnects.
 */
import { startTestFtpServer, type TestFtpServer } from '../server/testing/ftpServer.ts';

let server: TestFtpServer | undefined;

process.on('message', (message: { start?: true }) => {
  if (message.start) {
    void startTestFtpServer().then((started) => {
      server = started;
      process.send?.({ port: started.port, root: started.root });
    });
  }
});
process.on('disconnect', () => {
  void (server?.close() ?? Promise.resolve()).finally(() => process.exit(0));
});
