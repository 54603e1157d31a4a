import type { ComponentChildren } from 'preact';

/** The card every signed-out screen sits in. */
export function AuthFrame(props: { title: string; children: ComponentChildren }) {
  return (
    <main class="auth" id="main" tabIndex={-1}>
      <div class="auth-card">
        <p class="brand" aria-hidden="true">
          Footfall
        </p>
        <h1>{props.title}</h1>
        {props.children}
      </div>
    </main>
  );
}
