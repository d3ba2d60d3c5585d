import { htmlBody } from './html-body';

test('the HTML part escapes the text, keeps paragraphs and links each address without its trailing full stop', () => {
  const html = htmlBody('Welcome to <Floe> & co.\n\nSet it here: http://127.0.0.1:8080/app/welcome?token=a_b-c&x=1.\nThen sign in.');
  expect(html).toContain('<p>Welcome to &lt;Floe&gt; &amp; co.</p>');
  expect(html).toContain('<p>Set it here: <a href="http://127.0.0.1:8080/app/welcome?token=a_b-c&amp;x=1">http://127.0.0.1:8080/app/welcome?token=a_b-c&amp;x=1</a>.<br>\nThen sign in.</p>');
});

test('an address cannot break out of its attribute', () => {
  expect(htmlBody('see https://e.example/"onmouseover=alert(1)')).toContain('<a href="https://e.example/">https://e.example/</a>&quot;onmouseover=alert(1)');
});
