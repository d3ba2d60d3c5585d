import type { OutgoingMail } from './mailer';

// The texts of the mails identity sends.

export function signupCodeMail(to: string, code: string, minutes: number): OutgoingMail {
  return {
    to,
    subject: `Your Floe sign-up code: ${code}`,
    text: `Your sign-up code is ${code}.\n\nEnter it within ${minutes} minutes to create your account. If you did not ask for it, ignore this mail: nothing is created without the code.\n`,
  };
}

export function recoveryCodeMail(to: string, code: string, minutes: number): OutgoingMail {
  return {
    to,
    subject: `Your Floe recovery code: ${code}`,
    text: `Your recovery code is ${code}.\n\nEnter it within ${minutes} minutes to get a new API key for your account; your other keys keep working. If you did not ask for it, ignore this mail.\n`,
  };
}
