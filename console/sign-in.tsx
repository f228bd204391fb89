import { useEffect, useState } from 'preact/hooks';
import type { SignIn } from '../lib/api/http/console';
import { keepToken, Problem, pageConfig, signOut } from './api';
import { Alert } from './list';

// Signing in to the console: under npm start, a name and password of the local operators
// (/local/sign-in); on AWS, Cognito's hosted sign-in (password and TOTP code), by authorization code
// with PKCE (RFC 7636): the page sends the operator there with the hash of a secret it keeps, and
// trades the code it comes back with, and that secret, for the ID token.
const PKCE_KEY = 'payment-service.pkce';
const here = () => `${location.origin}${location.pathname}`;
const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
const randomText = () => base64url(crypto.getRandomValues(new Uint8Array(32)));

async function toHostedSignIn(signIn: Extract<SignIn, { kind: 'hosted' }>) {
  const verifier = randomText();
  const state = randomText();
  sessionStorage.setItem(PKCE_KEY, JSON.stringify({ verifier, state }));
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: signIn.clientId,
    redirect_uri: here(),
    scope: 'openid email',
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  location.assign(`${signIn.url}/oauth2/authorize?${query}`);
}

// Back from the hosted sign-in (?code=…&state=…): the code and the kept secret for the ID token.
async function fromHostedSignIn(signIn: Extract<SignIn, { kind: 'hosted' }>, params: URLSearchParams): Promise<void> {
  const kept = JSON.parse(sessionStorage.getItem(PKCE_KEY) ?? '{}') as { verifier?: string; state?: string };
  sessionStorage.removeItem(PKCE_KEY);
  history.replaceState(null, '', here() + location.hash);
  if (!kept.verifier || params.get('state') !== kept.state) throw new Error('This sign-in was not started here: sign in again');
  const res = await fetch(`${signIn.url}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: signIn.clientId,
      code: params.get('code')!,
      redirect_uri: here(),
      code_verifier: kept.verifier,
    }),
  });
  const tokens = (await res.json()) as { id_token?: string; error?: string };
  if (!res.ok || !tokens.id_token) throw new Error(`The sign-in failed: ${tokens.error ?? res.status}`);
  keepToken(tokens.id_token);
}

// Signing out: the token forgotten here, and on AWS the hosted sign-in's session too.
export async function signOutEverywhere() {
  signOut();
  const { signIn } = await pageConfig();
  if (signIn.kind === 'hosted') location.assign(`${signIn.url}/logout?${new URLSearchParams({ client_id: signIn.clientId, logout_uri: here() })}`);
}

export function SignInPage({ onSignedIn }: { onSignedIn: () => void }) {
  const [signIn, setSignIn] = useState<SignIn>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    pageConfig().then(
      async ({ signIn }) => {
        setSignIn(signIn);
        const params = new URLSearchParams(location.search);
        if (signIn.kind === 'hosted' && params.has('code')) {
          await fromHostedSignIn(signIn, params).then(onSignedIn, (e: Error) => setError(e.message));
        }
      },
      (e: Error) => setError(e.message),
    );
  }, []);
  if (!signIn) return <Alert text={error} />;
  return (
    <div class="sign-in">
      <h1>Sign in</h1>
      {signIn.kind === 'hosted' ? (
        <button type="button" onClick={() => toHostedSignIn(signIn)}>
          Sign in
        </button>
      ) : (
        <LocalSignIn onSignedIn={onSignedIn} onError={setError} />
      )}
      <Alert text={error} />
    </div>
  );
}

function LocalSignIn({ onSignedIn, onError }: { onSignedIn: () => void; onError: (text: string) => void }) {
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const submit = async (e: Event) => {
    e.preventDefault();
    const res = await fetch('/local/sign-in', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name, password }) });
    const body = await res.json();
    if (!res.ok) return onError(new Problem(res.status, body).message);
    keepToken(body.idToken);
    onSignedIn();
  };
  return (
    <form onSubmit={submit}>
      <label>
        Name <input name="name" autocomplete="username" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} required />
      </label>
      <label>
        Password{' '}
        <input
          name="password"
          type="password"
          autocomplete="current-password"
          value={password}
          onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
          required
        />
      </label>
      <button type="submit">Sign in</button>
    </form>
  );
}
