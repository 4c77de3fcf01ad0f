// The models screening scores with (the injection detector's and the spam classifier's, a few MB
// of JSON) are read once per process. Read at the first message, parsing them held the event loop
// for hundreds of milliseconds, every request waiting; a worker reads them as it starts instead,
// before it takes a job (and before the service answers /readyz).
import { shippedModel } from "../../comprehension/injection/model.ts";
import { loadSpamModel } from "../../comprehension/spam/classifier.ts";

export async function loadScreeningModels(): Promise<void> {
  shippedModel();
  await loadSpamModel();
}
