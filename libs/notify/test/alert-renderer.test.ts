import { expect } from 'chai';
import { renderAlert, type AlertInput } from '../src/alert-renderer.js';

const AT = Date.UTC(2026, 10, 21, 13, 5);
const alert = (over: Partial<AlertInput> = {}): AlertInput => ({
  title: 'More than 10 sessions tagged checkout in the last hour: 14',
  lines: ['Threshold: 10 sessions an hour', 'Sessions: 14'],
  origin: 'https://acme.example',
  project: 'web',
  at: AT,
  ...over,
});

describe('renderAlert', () => {
  it('puts the title and the project in the subject', () => {
    expect(renderAlert(alert()).subject).to.equal(
      'Spoor alert: More than 10 sessions tagged checkout in the last hour: 14 — web (https://acme.example)',
    );
  });

  it('gives the project, the time and each line in every format', () => {
    const msg = renderAlert(alert({ dashboardUrl: 'https://spoor.example/alerts' }));
    expect(msg.text).to.equal(
      [
        'Spoor alert: More than 10 sessions tagged checkout in the last hour: 14',
        '',
        'Project: web (https://acme.example)',
        'At: 21 Nov 2026 13:05 UTC',
        '',
        '- Threshold: 10 sessions an hour',
        '- Sessions: 14',
        '',
        'Open the dashboard: https://spoor.example/alerts',
        '',
      ].join('\n'),
    );
    expect(msg.markdown).to.include('**Spoor alert\\: More than 10 sessions tagged checkout in the last hour\\: 14**');
    expect(msg.markdown).to.include('- Sessions\\: 14');
    expect(msg.html)
      .to.include('<li>Threshold: 10 sessions an hour</li>')
      .and.include('<a href="https://spoor.example/alerts">');
  });

  it('shows the time in the requested zone', () => {
    expect(renderAlert(alert({ timeZone: 'Asia/Tokyo' })).text).to.include('At: 21 Nov 2026 22:05 Asia/Tokyo');
  });

  it('lists 20 lines at most and counts the rest', () => {
    const lines = Array.from({ length: 25 }, (_, i) => `session s-${i}`);
    const msg = renderAlert(alert({ lines }));
    expect(msg.text).to.include('- session s-19\n- … and 5 more');
    expect(msg.text).not.to.include('s-20');
  });

  it('leaves the list out when there are no lines', () => {
    expect(renderAlert(alert({ lines: [] })).html).not.to.include('<ul');
  });

  const hostile: Array<[string, Partial<AlertInput>]> = [
    ['title', { title: '<script>alert(1)</script>\r\nBcc: evil@x.test' }],
    ['line', { lines: ['<script>alert(1)</script>\r\nBcc: evil@x.test'] }],
    ['project', { project: '<script>alert(1)</script>\r\nBcc: evil@x.test' }],
  ];
  for (const [field, over] of hostile) {
    it(`escapes a hostile ${field} in every format`, () => {
      const msg = renderAlert(alert(over));
      expect(msg.subject).not.to.match(/[\r\n]/);
      expect(msg.html).to.include('&lt;script&gt;').and.not.to.include('<script>');
      expect(msg.markdown).to.include('\\<script\\>');
      for (const body of [msg.text, msg.markdown, msg.html])
        expect(body.split('\n').some((l) => l.startsWith('Bcc:'))).to.equal(false);
    });
  }
});
