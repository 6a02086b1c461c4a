package dev.ratelimit.ai;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/** An application with a stand-in model behind the auto-configured {@code ChatClient.Builder}. */
@SpringBootApplication
public class TokenBudgetTestApplication {

	@Bean
	UsageReportingChatModel chatModel() {
		return new UsageReportingChatModel(50, 100);
	}

}
