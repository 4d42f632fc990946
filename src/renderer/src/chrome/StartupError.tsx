/** Why the app could not start, in place of the window; nothing was changed. */
export function StartupError({ title, message, detail }: { title: string; message: string; detail?: string }) {
  return (
    <div className="startup-error" role="alert">
      <h1>{title}</h1>
      <p>{message}</p>
      {detail && <p className="muted">{detail}</p>}
      <p className="muted">Nothing was changed or deleted. Quit the app, then move the file aside or update the app.</p>
    </div>
  );
}
